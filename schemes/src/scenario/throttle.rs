//! Token buckets per shard (`run --throttle`): a request with no token is throttled, not
//! queued.
//!
//! Each shard has a bucket of `C x max(1, B)` tokens (`C` requests per second of trace time,
//! `B` seconds of burst), full at the first event and refilled by `C` per whole second
//! elapsed since the first event, capped at its size. Every node request takes one token (a
//! scan takes one at each shard it contacts). With separate `read=`/`write=` rates, gets and
//! scans take from the read bucket and puts and deletes from the write bucket.

use serde::{Deserialize, Serialize};

use crate::AnalysisError;

/// Per-shard rates and burst of `--throttle`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Throttle {
    /// Read requests per second (gets and scans); with `rate=`, every request.
    pub read: f64,
    /// Write requests per second (puts and deletes); `None`: writes share the read bucket.
    pub write: Option<f64>,
    /// Seconds of burst.
    pub burst: f64,
}

impl Throttle {
    /// Parses `rate=C[,burst=B]`, `read=R,write=W[,burst=B]` or `dynamodb` (3000 reads and
    /// 1000 writes per partition per second, 300 s of burst).
    pub fn parse(text: &str) -> Result<Throttle, AnalysisError> {
        let error = |what: String| {
            AnalysisError::Config(format!(
                "--throttle '{text}': {what}; give rate=C[,burst=B], read=R,write=W[,burst=B] \
                 or dynamodb"
            ))
        };
        if text.trim() == "dynamodb" {
            return Ok(Throttle {
                read: 3000.0,
                write: Some(1000.0),
                burst: 300.0,
            });
        }
        let (mut rate, mut read, mut write, mut burst) = (None, None, None, 0.0);
        for part in text.split(',') {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| error(format!("'{part}' is not name=value")))?;
            let value: f64 = match value.trim().parse() {
                Ok(v) if f64::is_finite(v) && v >= 0.0 => v,
                _ => return Err(error(format!("'{value}' is not a number of 0 or more"))),
            };
            match name.trim() {
                "rate" => rate = Some(value),
                "read" => read = Some(value),
                "write" => write = Some(value),
                "burst" => burst = value,
                other => return Err(error(format!("unknown parameter '{other}'"))),
            }
        }
        match (rate, read, write) {
            (Some(c), None, None) => Ok(Throttle {
                read: c,
                write: None,
                burst,
            }),
            (None, Some(r), Some(w)) => Ok(Throttle {
                read: r,
                write: Some(w),
                burst,
            }),
            (Some(_), _, _) => Err(error("rate= goes alone, or read= with write=".into())),
            _ => Err(error("give rate=, or both read= and write=".into())),
        }
    }
}

/// The buckets of every shard.
#[derive(Clone, Debug)]
pub struct Buckets {
    throttle: Throttle,
    /// Tokens of each shard's read (or only) bucket and write bucket.
    tokens: Vec<[f64; 2]>,
    /// The whole second of trace time the buckets were last refilled at.
    second: u64,
}

impl Buckets {
    /// Full buckets for `shards` shards.
    pub fn new(throttle: Throttle, shards: u32) -> Buckets {
        let mut b = Buckets {
            throttle,
            tokens: Vec::new(),
            second: 0,
        };
        b.grow(shards);
        b
    }

    fn size(&self, rate: f64) -> f64 {
        rate * self.throttle.burst.max(1.0)
    }

    /// Adds full buckets for shards up to `shards`.
    pub fn grow(&mut self, shards: u32) {
        let full = [
            self.size(self.throttle.read),
            self.size(self.throttle.write.unwrap_or(0.0)),
        ];
        self.tokens
            .resize(self.tokens.len().max(shards as usize), full);
    }

    /// Refills for the whole seconds elapsed up to `second`.
    pub fn tick(&mut self, second: u64) {
        if second <= self.second {
            return;
        }
        let elapsed = (second - self.second) as f64;
        let rates = [self.throttle.read, self.throttle.write.unwrap_or(0.0)];
        let sizes = [self.size(rates[0]), self.size(rates[1])];
        for t in &mut self.tokens {
            for i in 0..2 {
                t[i] = (t[i] + rates[i] * elapsed).min(sizes[i]);
            }
        }
        self.second = second;
    }

    /// Refills up to `second`, then takes a token of `shard` ([`Buckets::take`]); false when
    /// the request is throttled.
    pub fn admit(&mut self, second: u64, shard: u32, write: bool) -> bool {
        self.tick(second);
        self.take(shard, write)
    }

    /// Takes a token of `shard` for a read or a write; false when there is none (throttled).
    pub fn take(&mut self, shard: u32, write: bool) -> bool {
        let i = usize::from(write && self.throttle.write.is_some());
        match self.tokens.get_mut(shard as usize) {
            Some(t) if t[i] >= 1.0 => {
                t[i] -= 1.0;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_starts_full_refills_per_whole_second_and_caps_at_its_size() {
        let t = Throttle::parse("rate=2,burst=2").unwrap();
        let mut b = Buckets::new(t, 1);
        // Size 2 x 2 = 4: four requests pass in second 0, the fifth is throttled.
        let passed: Vec<bool> = (0..5).map(|_| b.take(0, false)).collect();
        assert_eq!(passed, [true, true, true, true, false]);
        b.tick(1); // +2
        assert!(b.take(0, false) && b.take(0, false) && !b.take(0, false));
        b.tick(100); // capped at 4
        assert_eq!((0..6).filter(|_| b.take(0, false)).count(), 4);
        let burstless = Throttle::parse("rate=3").unwrap();
        let mut b = Buckets::new(burstless, 2);
        assert_eq!((0..5).filter(|_| b.take(1, false)).count(), 3); // size 3 x max(1, 0)
    }

    #[test]
    fn reads_and_writes_take_from_their_own_buckets() {
        let mut b = Buckets::new(Throttle::parse("read=2,write=1").unwrap(), 1);
        assert!(b.take(0, true) && !b.take(0, true));
        assert!(b.take(0, false) && b.take(0, false) && !b.take(0, false));
        let d = Throttle::parse("dynamodb").unwrap();
        assert_eq!((d.read, d.write, d.burst), (3000.0, Some(1000.0), 300.0));
        for bad in ["rate", "rate=-1", "rate=1,read=2", "read=1", "speed=3"] {
            assert!(Throttle::parse(bad).is_err(), "{bad}");
        }
    }
}
