//! Spec strings such as `zipf:keys=1000,s=0.99` or `ring:vnodes=256`.
//!
//! Grammar: `name[:param=value[,param=value...]]`. A comma-separated token without `=` after
//! a parameter adds another value to that parameter (a sweep: `zipf:s=0.6,0.8,1.0`).
//! In a list of specs (`--schemes range,ring:vnodes=64,hash`) such a token starts the next spec.

use std::fmt;

/// A parsed spec: a name and its parameters in the order given.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The family name before the colon.
    pub name: String,
    /// Parameters with one value each, or several for a sweep.
    pub params: Vec<(String, Vec<String>)>,
}

/// What went wrong with a spec string; the message names the spec and the fix.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid spec '{spec}': {message}")]
pub struct SpecError {
    /// The spec as the user wrote it.
    pub spec: String,
    /// What is wrong and what would be right.
    pub message: String,
}

impl Spec {
    /// Parses one spec; parameters may carry several values (sweeps).
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let err = |message: String| SpecError {
            spec: text.to_string(),
            message,
        };
        let text_trim = text.trim();
        // The name ends at the last ':' before the first '=': a name may itself hold a colon
        // (a named variant such as `ycsb:a`, or `ycsb:a:records=1000` with parameters).
        let split = match text_trim.find('=') {
            Some(eq) => text_trim[..eq].rfind(':'),
            None => None,
        };
        let (name, rest) = match split {
            Some(i) => (text_trim[..i].trim(), Some(&text_trim[i + 1..])),
            None => (text_trim, None),
        };
        if name.is_empty() {
            return Err(err("the name before ':' is missing".into()));
        }
        let mut params: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(rest) = rest {
            for token in rest.split(',').map(str::trim) {
                if let Some((k, v)) = token.split_once('=') {
                    let (k, v) = (k.trim(), v.trim());
                    if k.is_empty() || v.is_empty() {
                        return Err(err(format!("'{token}' must be written param=value")));
                    }
                    if params.iter().any(|(p, _)| p == k) {
                        return Err(err(format!("parameter '{k}' is given twice")));
                    }
                    params.push((k.to_string(), vec![v.to_string()]));
                } else if let (false, Some(last)) = (token.is_empty(), params.last_mut()) {
                    last.1.push(token.to_string());
                } else {
                    return Err(err(format!("'{token}' must be written param=value")));
                }
            }
        }
        Ok(Spec {
            name: name.to_string(),
            params,
        })
    }

    /// Splits a comma-separated list of specs: a token without `=` starts a new spec.
    pub fn parse_list(text: &str) -> Result<Vec<Spec>, SpecError> {
        let mut pieces: Vec<String> = Vec::new();
        for token in text.split(',') {
            match pieces.last_mut() {
                Some(last) if token.contains('=') && !token.contains(':') => {
                    last.push(',');
                    last.push_str(token);
                }
                _ => pieces.push(token.to_string()),
            }
        }
        pieces.iter().map(|p| Spec::parse(p)).collect()
    }

    /// Expands a sweep into one spec per combination of values (in the order given).
    pub fn expand(&self) -> Vec<Spec> {
        let mut out = vec![Spec {
            name: self.name.clone(),
            params: Vec::new(),
        }];
        for (k, values) in &self.params {
            out = out
                .into_iter()
                .flat_map(|s| {
                    values.iter().map(move |v| {
                        let mut s = s.clone();
                        s.params.push((k.clone(), vec![v.clone()]));
                        s
                    })
                })
                .collect();
        }
        out
    }

    /// Fails unless every parameter is one of `known` and has a single value.
    pub fn check(&self, known: &[&str]) -> Result<(), SpecError> {
        for (k, values) in &self.params {
            if !known.contains(&k.as_str()) {
                return Err(self.error(format!(
                    "unknown parameter '{k}' for '{}'; valid parameters: {}",
                    self.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
            if values.len() != 1 {
                return Err(self.error(format!("parameter '{k}' takes one value here")));
            }
        }
        Ok(())
    }

    /// The raw text of a parameter, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v[0].as_str())
    }

    /// A parameter parsed as `T`, or `default` when absent.
    pub fn parse_or<T: std::str::FromStr>(
        &self,
        key: &str,
        default: T,
        expected: &str,
    ) -> Result<T, SpecError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .replace('_', "")
                .parse()
                .map_err(|_| self.error(format!("{key}={v} is not {expected}"))),
        }
    }

    /// An integer parameter that must be at least `min`.
    pub fn u64_at_least(&self, key: &str, default: u64, min: u64) -> Result<u64, SpecError> {
        let v: u64 = self.parse_or(key, default, "a whole number")?;
        if v < min {
            return Err(self.error(format!("{key}={v} must be at least {min}")));
        }
        Ok(v)
    }

    /// An optional integer parameter of at least `min`: `None` when not given.
    pub fn optional_u64_at_least(&self, key: &str, min: u64) -> Result<Option<u64>, SpecError> {
        self.get(key)
            .map(|_| self.u64_at_least(key, min, min))
            .transpose()
    }

    /// A fraction parameter in `[0, 1]`.
    pub fn fraction(&self, key: &str, default: f64) -> Result<f64, SpecError> {
        let v: f64 = self.parse_or(key, default, "a number")?;
        if !(0.0..=1.0).contains(&v) {
            return Err(self.error(format!("{key}={v} must be a fraction between 0 and 1")));
        }
        Ok(v)
    }

    /// A boolean parameter (`true`/`false`).
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, SpecError> {
        self.parse_or(key, default, "true or false")
    }

    /// An error about this spec.
    pub fn error(&self, message: String) -> SpecError {
        SpecError {
            spec: self.to_string(),
            message,
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={}", if i == 0 { ':' } else { ',' }, v.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_with_parameters_parses_and_prints_back() {
        let s = Spec::parse("zipf:keys=1000,s=0.99").unwrap();
        assert_eq!(s.name, "zipf");
        assert_eq!(s.get("keys"), Some("1000"));
        assert_eq!(s.parse_or("s", 1.0, "a number").unwrap(), 0.99);
        assert_eq!(s.to_string(), "zipf:keys=1000,s=0.99");
    }

    #[test]
    fn a_name_may_hold_a_variant_after_a_colon() {
        let s = Spec::parse("ycsb:a").unwrap();
        assert_eq!((s.name.as_str(), s.params.len()), ("ycsb:a", 0));
        let s = Spec::parse("ycsb:e:records=1000,scan_max=10").unwrap();
        assert_eq!(s.name, "ycsb:e");
        assert_eq!(s.get("records"), Some("1000"));
        assert_eq!(s.to_string(), "ycsb:e:records=1000,scan_max=10");
        assert_eq!(
            Spec::parse("range:boundaries=C:/splits.txt")
                .unwrap()
                .get("boundaries"),
            Some("C:/splits.txt")
        );
        let list = Spec::parse_list("ycsb:a,zipf:s=1,ycsb:b:records=5").unwrap();
        let names: Vec<&str> = list.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ycsb:a", "zipf", "ycsb:b"]);
    }

    #[test]
    fn a_sweep_expands_to_every_combination() {
        let s = Spec::parse("zipf:s=0.6,0.8,keys=10,20").unwrap();
        let all: Vec<String> = s.expand().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            all,
            [
                "zipf:s=0.6,keys=10",
                "zipf:s=0.6,keys=20",
                "zipf:s=0.8,keys=10",
                "zipf:s=0.8,keys=20"
            ]
        );
    }

    #[test]
    fn a_list_splits_where_a_new_name_starts() {
        let list = Spec::parse_list("range,ring:vnodes=64,hash,salted:buckets=8").unwrap();
        let names: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            names,
            ["range", "ring:vnodes=64", "hash", "salted:buckets=8"]
        );
    }

    #[test]
    fn unknown_and_malformed_parameters_are_refused_with_the_valid_ones() {
        let e = Spec::parse("ring:vnode=3")
            .unwrap()
            .check(&["vnodes"])
            .unwrap_err();
        assert!(e.to_string().contains("valid parameters: vnodes"), "{e}");
        assert!(Spec::parse(":x=1").is_err());
        assert!(Spec::parse("ring:=3").is_err());
        assert!(Spec::parse("ring:vnodes=1,vnodes=2").is_err());
        let e = Spec::parse("ring:vnodes=x")
            .unwrap()
            .u64_at_least("vnodes", 1, 1)
            .unwrap_err();
        assert!(e.to_string().contains("not a whole number"), "{e}");
    }
}
