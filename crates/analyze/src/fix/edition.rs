//! What a rewrite needs beyond its paths, by the package's edition and target.
//!
//! - **Edition 2015.** An extern crate is in scope only where `extern crate` declares it, and
//!   only in the module that declares it: `welltempered::channel::unbounded()` resolves from a
//!   crate's root once `extern crate welltempered;` is there, and from any other module only as
//!   the absolute path `::welltempered::...`. (The Edition Guide, "Path and module system
//!   changes", <https://doc.rust-lang.org/edition-guide/rust-2018/path-changes.html>.) So in a
//!   2015 package every new path is written absolute, and the root of every target that
//!   compiles a rewritten file gets the declaration, after its inner attributes.
//! - **The build script.** It sees `[build-dependencies]` only, and `--fix` adds welltempered
//!   to `[dependencies]`: a channel made in a file the build script compiles is kept.

use crate::Analysis;

/// The declaration a 2015 target's root needs.
const DECLARATION: &str = "extern crate welltempered;";

/// Whether the package is edition 2015, where new paths are written absolute (`::welltempered`).
pub(super) fn absolute_paths(a: &Analysis) -> bool {
    a.edition == "2015"
}

/// `to` as written in this package: absolute in edition 2015.
pub(super) fn path_for(a: &Analysis, to: &str) -> String {
    if absolute_paths(a) {
        format!("::{to}")
    } else {
        to.to_string()
    }
}

/// Whether `file` is compiled into the build script (alone, or with other targets).
pub(super) fn in_build_script(a: &Analysis, file: &str) -> bool {
    a.target_files
        .iter()
        .any(|(files, build)| *build && files.iter().any(|f| f == file))
}

/// The roots (relative to the crate root) of the targets that compile one of `rewritten`, in a
/// 2015 package: each needs `extern crate welltempered;`. Empty in later editions.
pub(super) fn roots_needing_extern(a: &Analysis, rewritten: &[&str]) -> Vec<String> {
    if !absolute_paths(a) {
        return Vec::new();
    }
    let mut roots: Vec<String> = a
        .target_files
        .iter()
        .filter(|(files, build)| !*build && files.iter().any(|f| rewritten.contains(&f.as_str())))
        .filter_map(|(files, _)| files.first().cloned())
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// `text` (a target's root) with `extern crate welltempered;` after its inner attributes and
/// inner doc comments, unless it declares it already under its own name (a rename, `as wt`,
/// does not put `welltempered` in scope). `None` when the text does not parse.
pub(super) fn with_extern_crate(text: &str) -> Option<String> {
    let file = crate::discover::parse(text).ok()?;
    let declared = file.items.iter().any(|i| {
        matches!(i, syn::Item::ExternCrate(e) if e.ident == "welltempered" && e.rename.is_none())
    });
    if declared {
        return Some(text.to_string());
    }
    // Inner attributes come first; the declaration goes on its own line after the last.
    let at = file
        .attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
        .map(|a| {
            let end = syn::spanned::Spanned::span(a).end();
            crate::flow::offset(text, end)
        })
        .max();
    let mut out = text.to_string();
    match at {
        Some(at) => {
            // The rest of the attribute's line stays after it (a trailing comment).
            let eol = text[at..].find('\n').map_or(text.len(), |n| at + n);
            if eol == text.len() {
                out.push('\n');
                out.push_str(DECLARATION);
                out.push('\n');
            } else {
                out.insert_str(eol + 1, &format!("{DECLARATION}\n"));
            }
        }
        None => out.insert_str(0, &format!("{DECLARATION}\n")),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::with_extern_crate;

    #[test]
    fn the_declaration_goes_after_inner_attributes_and_docs() {
        let src = "//! Docs.\n#![deny(missing_docs)]\n#![cfg_attr(\n    test,\n    allow(dead_code)\n)] // why\n\n//! More.\nmod a;\n";
        let out = with_extern_crate(src).unwrap();
        assert_eq!(
            out,
            "//! Docs.\n#![deny(missing_docs)]\n#![cfg_attr(\n    test,\n    allow(dead_code)\n)] // why\n\n//! More.\nextern crate welltempered;\nmod a;\n"
        );
    }

    #[test]
    fn without_inner_attributes_it_goes_first() {
        let out = with_extern_crate("use std::sync::mpsc;\nfn main() {}\n").unwrap();
        assert_eq!(
            out,
            "extern crate welltempered;\nuse std::sync::mpsc;\nfn main() {}\n"
        );
    }

    #[test]
    fn a_root_that_declares_it_is_left_as_it_is_but_a_rename_is_not_the_name() {
        let src = "#[macro_use]\nextern crate welltempered;\nfn main() {}\n";
        assert_eq!(with_extern_crate(src).unwrap(), src);
        let renamed = "extern crate welltempered as wt;\nfn main() {}\n";
        assert_eq!(
            with_extern_crate(renamed).unwrap(),
            format!("extern crate welltempered;\n{renamed}")
        );
    }

    #[test]
    fn edition_2015_code_parses() {
        let out =
            with_extern_crate("#![allow(unused)]\nfn f(g: Box<FnMut() + Send>) {}\n").unwrap();
        assert!(out.starts_with("#![allow(unused)]\nextern crate welltempered;\nfn f"));
    }
}
