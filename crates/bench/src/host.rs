//! Facts about the machine and the build, recorded in every report.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The machine, the toolchain and the versions a report was measured with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// Host name.
    pub hostname: String,
    /// CPU model (from `/proc/cpuinfo`).
    pub cpu_model: String,
    /// Logical CPUs this process may run on.
    pub cores: usize,
    /// Logical CPUs the machine has.
    pub cpus_online: usize,
    /// Kernel name and release.
    pub kernel: String,
    /// `rustc -V` of the compiler that built the harness.
    pub rustc: String,
    /// Resolved versions of the baselines and of our crates (from `Cargo.lock`).
    pub versions: BTreeMap<String, String>,
    /// Whether hardware counters could be opened.
    pub pmu: bool,
    /// Whether the harness was built with optimisations.
    pub optimized: bool,
    /// Start of the run, UTC, ISO 8601.
    pub date_utc: String,
    /// Whether simultaneous multithreading is active (`/sys/devices/system/cpu/smt/active`);
    /// `null` where the kernel does not say.
    #[serde(default)]
    pub smt: Option<bool>,
    /// NUMA nodes with CPUs (`/sys/devices/system/node/has_cpu`); 0 where not known.
    #[serde(default)]
    pub numa_nodes: usize,
    /// The CPU frequency governor of CPU 0 (`scaling_governor`); empty where there is none (a
    /// virtual machine without cpufreq).
    #[serde(default)]
    pub governor: String,
}

impl Host {
    /// Collects the facts of this machine now.
    pub fn collect() -> Self {
        Self {
            hostname: read_trim("/proc/sys/kernel/hostname"),
            cpu_model: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpus_online: cpus_online(),
            kernel: format!(
                "{} {}",
                read_trim("/proc/sys/kernel/ostype"),
                read_trim("/proc/sys/kernel/osrelease")
            )
            .trim()
            .to_string(),
            rustc: env!("WT_RUSTC_VERSION").to_string(),
            versions: versions(env!("WT_CRATE_VERSIONS")),
            pmu: crate::counters::pmu_available(),
            optimized: !cfg!(debug_assertions),
            date_utc: utc_now(),
            smt: match read_trim("/sys/devices/system/cpu/smt/active").as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            },
            numa_nodes: count_cpu_list(&read_trim("/sys/devices/system/node/has_cpu")),
            governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        }
    }

    /// The facts that tell machines apart, in one line: CPU, cores, SMT, NUMA nodes, kernel,
    /// governor, PMU.
    pub fn facts(&self) -> String {
        let smt = match self.smt {
            Some(true) => "SMT on",
            Some(false) => "SMT off",
            None => "SMT unknown",
        };
        let numa = match self.numa_nodes {
            0 => "NUMA unknown".to_string(),
            1 => "1 NUMA node".to_string(),
            n => format!("{n} NUMA nodes"),
        };
        let governor = if self.governor.is_empty() {
            "no cpufreq governor".to_string()
        } else {
            format!("governor {}", self.governor)
        };
        format!(
            "{}, {smt}, {numa}, {}, {governor}, {}",
            self.label(),
            self.kernel,
            if self.pmu { "PMU" } else { "no PMU" }
        )
    }

    /// A short label for tables: CPU model and core count.
    pub fn label(&self) -> String {
        format!("{} ({} cpus)", self.cpu_model, self.cores)
    }
}

fn read_trim(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    info.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            matches!(k.trim(), "model name" | "Model" | "cpu model").then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn cpus_online() -> usize {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let n = info.lines().filter(|l| l.starts_with("processor")).count();
    n.max(1)
}

/// The number of entries in a kernel CPU or node list such as `0-3,8,10-11` (0 for an empty
/// or unreadable one).
pub fn count_cpu_list(list: &str) -> usize {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.trim().split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => usize::from(p.trim().parse::<usize>().is_ok()),
        })
        .sum()
}

/// Parses `name=version;name=version`; a name seen twice keeps both versions, comma-separated.
pub fn versions(encoded: &str) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for (name, version) in encoded.split(';').filter_map(|p| p.split_once('=')) {
        map.entry(name.to_string())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(version);
            })
            .or_insert_with(|| version.to_string());
    }
    map
}

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_from_unix(secs)
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar;
/// the days-to-civil conversion of H. Hinnant).
pub fn utc_from_unix(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formatting() {
        assert_eq!(utc_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_from_unix(1_798_761_599), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn kernel_lists_are_counted() {
        assert_eq!(count_cpu_list("0"), 1);
        assert_eq!(count_cpu_list("0-3,8,10-11"), 7);
        assert_eq!(count_cpu_list(""), 0);
        assert_eq!(count_cpu_list("x"), 0);
    }

    #[test]
    fn versions_parse_and_merge() {
        let v = versions("spin=0.12.3;lock_api=0.4.14;lock_api=0.5.0;bad");
        assert_eq!(v["spin"], "0.12.3");
        assert_eq!(v["lock_api"], "0.4.14, 0.5.0");
        assert_eq!(v.len(), 2);
    }

    #[test]
    fn build_facts_are_recorded() {
        let v = versions(env!("WT_CRATE_VERSIONS"));
        assert!(v.contains_key("parking_lot"), "{v:?}");
        assert!(env!("WT_RUSTC_VERSION").starts_with("rustc"));
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn collect_fills_in_facts() {
        let h = Host::collect();
        assert!(h.cores >= 1);
        assert!(h.date_utc.ends_with('Z'));
        assert!(!h.rustc.is_empty());
    }
}
