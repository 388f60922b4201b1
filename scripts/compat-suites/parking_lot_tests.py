"""parking_lot's tests for the scratch suite of scripts/compat-suites.sh.

Each file of parking_lot's src/ with test modules (from its first `#[cfg(test)]` to the end,
which use only parking_lot's public API) becomes a test file of the suite, `crate::` read as
`parking_lot::`. Usage: parking_lot_tests.py SRC_DIR OUT_DIR

Removed, each for a stated difference (documented in compat/parking_lot/src/lib.rs):
  R: recursive reads (`read_recursive`) do not exist here: rwlock's test_rwlock_recursive
     and test_clone (which takes its guard with `read_recursive`).
  D: the `deadlock_detection` feature is refused here: src/deadlock.rs, whose tests all need it,
     is not copied (it would run 0 tests).
Rewritten: condvar's tests call parking_lot's private `wait_while_until_internal`; a shim in
the test file gives them the same thing through the public `wait_while_until` and
`wait_while_for` (an untimed wait is a wait for `Duration::MAX`).
"""

import pathlib
import re
import sys

NOT_COPIED = {"deadlock"}
REMOVED = {"rwlock": ["test_rwlock_recursive", "test_clone"]}

SHIM = """
trait WaitWhileUntil {
    fn wait_while_until_shim<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut parking_lot::MutexGuard<'_, T>,
        condition: F,
        timeout: Option<std::time::Instant>,
    ) -> parking_lot::WaitTimeoutResult;
}

impl WaitWhileUntil for parking_lot::Condvar {
    fn wait_while_until_shim<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut parking_lot::MutexGuard<'_, T>,
        condition: F,
        timeout: Option<std::time::Instant>,
    ) -> parking_lot::WaitTimeoutResult {
        match timeout {
            Some(t) => self.wait_while_until(guard, condition, t),
            None => self.wait_while_for(guard, condition, std::time::Duration::MAX),
        }
    }
}

"""


def drop_fn(text: str, name: str) -> str:
    """`text` without the function `name`, its attributes and its body."""
    m = re.search(r"((?:[ \t]*#\[[^\n]*\]\n)*)[ \t]*fn " + name + r"\(", text)
    if not m:
        raise SystemExit(f"no fn {name} to remove")
    depth = 0
    for j in range(text.index("{", m.end()), len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[: m.start()] + text[j + 1 :]
    raise SystemExit(f"unbalanced braces after fn {name}")


def main() -> None:
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    for f in sorted(src.glob("*.rs")):
        text = f.read_text()
        start = text.find("#[cfg(test)]")
        if start < 0 or f.stem in NOT_COPIED:
            continue
        body = text[start:].replace("crate::", "parking_lot::")
        for name in REMOVED.get(f.stem, []):
            body = drop_fn(body, name)
        if "wait_while_until_internal(" in body:
            body = SHIM + re.sub(
                r"(\n    use parking_lot::\{[^}]*\};)",
                r"\1\n    use super::WaitWhileUntil;",
                body,
            ).replace(".wait_while_until_internal(", ".wait_while_until_shim(")
        header = f"// parking_lot's tests: the test modules of src/{f.name}.\n"
        (out / f"{f.stem}.rs").write_text(header + body)


if __name__ == "__main__":
    main()
