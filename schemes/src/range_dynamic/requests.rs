//! The requests of one window: the event log, the requests that reach a span of keys, and
//! which side of a candidate boundary each request falls on.
//!
//! Load is counted in requests: a point operation is one request to the range holding its
//! key; a scan `[a, b)` is one request to every range it overlaps (a boundary inside a scan
//! makes it a request to both sides).

use workloads::Event;

use crate::changing::WindowLog;

use crate::balance::imbalance;

/// One request seen by a span of keys, clipped to the span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// The key of a point operation, or the (clipped) start of a scan.
    pub key: &'a [u8],
    /// The (clipped) exclusive end of a scan; always after `key`. `None` for point operations,
    /// and for a scan that runs past the end of an unbounded span.
    pub end: Option<&'a [u8]>,
    /// True for scans.
    pub scan: bool,
}

/// Where a request falls relative to a boundary `k` (the left range is `[.., k)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Entirely before `k`.
    Left,
    /// Entirely at or after `k`.
    Right,
    /// A scan that `k` cuts: it would become a request to both ranges.
    Contained,
}

impl Request<'_> {
    /// The side of boundary `k` this request falls on.
    pub fn side(&self, k: &[u8]) -> Side {
        if self.key >= k {
            Side::Right
        } else if !self.scan || self.end.is_some_and(|end| end <= k) {
            Side::Left
        } else {
            Side::Contained
        }
    }
}

/// Requests counted by side of one boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideCounts {
    /// Requests entirely left of the boundary.
    pub left: u64,
    /// Requests entirely right of it.
    pub right: u64,
    /// Scans the boundary cuts.
    pub contained: u64,
}

impl SideCounts {
    /// Counts `requests` against boundary `k`.
    pub fn at(requests: &[Request<'_>], k: &[u8]) -> SideCounts {
        let mut counts = SideCounts::default();
        for r in requests {
            counts.add(r.side(k));
        }
        counts
    }

    /// Counts one request.
    pub fn add(&mut self, side: Side) {
        match side {
            Side::Left => self.left += 1,
            Side::Right => self.right += 1,
            Side::Contained => self.contained += 1,
        }
    }

    /// All requests counted.
    pub fn total(&self) -> u64 {
        self.left + self.right + self.contained
    }

    /// |L-R|/(L+R) of the load the two new ranges would get, where a cut scan is a request
    /// to both (1.0 when there is no load).
    pub fn balance(&self) -> f64 {
        imbalance(self.left + self.contained, self.right + self.contained)
    }

    /// Share of the requests that the boundary cuts (0 when there are none).
    pub fn contained_share(&self) -> f64 {
        match self.total() {
            0 => 0.0,
            n => self.contained as f64 / n as f64,
        }
    }

    /// Share of the load the left range would get (0.5 when there is no load).
    pub fn left_load_share(&self) -> f64 {
        let (l, r) = (self.left + self.contained, self.right + self.contained);
        if l + r == 0 {
            0.5
        } else {
            l as f64 / (l + r) as f64
        }
    }
}

/// True when `k` can cut the span `[start, end)` into two non-empty ranges.
pub fn inside(k: &[u8], start: &[u8], end: Option<&[u8]>) -> bool {
    k > start && end.is_none_or(|e| k < e)
}

impl WindowLog {
    /// The requests that reach `[start, end)`, in arrival order, clipped to the span.
    pub fn requests_in<'a>(&'a self, start: &'a [u8], end: Option<&'a [u8]>) -> Vec<Request<'a>> {
        let (points, scans) = self.index.get_or_init(|| self.build_index());
        let events = &self.events;
        let before_end = |k: &[u8]| end.is_none_or(|e| k < e);
        let lo = points.partition_point(|&i| events.get(i as usize).key < start);
        let hi = points.partition_point(|&i| before_end(events.get(i as usize).key));
        let mut hits: Vec<u32> = points.get(lo..hi.max(lo)).unwrap_or_default().to_vec();
        let scans_before_end = scans.partition_point(|&i| before_end(events.get(i as usize).key));
        hits.extend(scans[..scans_before_end].iter().copied().filter(|&i| {
            let e = events.get(i as usize);
            e.end.is_none_or(|scan_end| scan_end > start)
        }));
        hits.sort_unstable();
        hits.into_iter()
            .map(|i| {
                let event = events.get(i as usize);
                match scan_end(&event) {
                    None => Request {
                        key: event.key,
                        end: None,
                        scan: false,
                    },
                    Some(scan_end) => Request {
                        key: event.key.max(start),
                        end: match (scan_end, end) {
                            (None, span_end) => span_end,
                            (Some(s), None) => Some(s),
                            (Some(s), Some(span_end)) => Some(s.min(span_end)),
                        },
                        scan: true,
                    },
                }
            })
            .collect()
    }

    fn build_index(&self) -> (Vec<u32>, Vec<u32>) {
        let (mut points, mut scans) = (Vec::new(), Vec::new());
        for (i, e) in self.events.iter().enumerate() {
            if scan_end(&e).is_some() {
                scans.push(i as u32);
            } else {
                points.push(i as u32);
            }
        }
        let key = |i: &u32| self.events.get(*i as usize).key;
        points.sort_by(|a, b| key(a).cmp(key(b)).then(a.cmp(b)));
        scans.sort_by(|a, b| key(a).cmp(key(b)).then(a.cmp(b)));
        (points, scans)
    }
}

/// For a scan or a range write, `Some(end)` (`Some(None)` when unbounded); `None` for point
/// operations and for scans whose end is not after their start, which, as in the replay
/// engine, only reach the range holding their start and so count as point requests.
pub fn scan_end<'a>(e: &Event<'a>) -> Option<Option<&'a [u8]>> {
    if e.is_point() {
        return None;
    }
    match e.end {
        Some(end) if end <= e.key => None,
        end => Some(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::Op;

    fn ev<'a>(op: Op, key: &'a [u8], end: Option<&'a [u8]>) -> Event<'a> {
        Event {
            op,
            key,
            end,
            timestamp: None,
            size: None,
        }
    }

    #[test]
    fn a_span_sees_its_points_and_the_scans_overlapping_it_clipped_in_arrival_order() {
        let mut log = WindowLog::default();
        log.push(ev(Op::Get, b"d", None));
        log.push(ev(Op::Scan, b"a", Some(b"f")));
        log.push(ev(Op::Put, b"k", None));
        log.push(ev(Op::Get, b"c", None));
        log.push(ev(Op::Scan, b"h", Some(b"z")));
        log.push(ev(Op::Scan, b"x", Some(b"a"))); // backwards: a point at x
        let got = log.requests_in(b"c", Some(b"j"));
        assert_eq!(
            got,
            vec![
                Request {
                    key: b"d",
                    end: None,
                    scan: false
                },
                Request {
                    key: b"c",
                    end: Some(b"f"),
                    scan: true
                },
                Request {
                    key: b"c",
                    end: None,
                    scan: false
                },
                Request {
                    key: b"h",
                    end: Some(b"j"),
                    scan: true
                },
            ]
        );
        assert_eq!(log.requests_in(b"w", None).len(), 2);
    }

    #[test]
    fn sides_follow_the_half_open_convention() {
        let point = Request {
            key: b"m",
            end: None,
            scan: false,
        };
        assert_eq!(point.side(b"m"), Side::Right);
        assert_eq!(point.side(b"n"), Side::Left);
        let scan = Request {
            key: b"c",
            end: Some(b"g"),
            scan: true,
        };
        assert_eq!(scan.side(b"c"), Side::Right);
        assert_eq!(scan.side(b"d"), Side::Contained);
        assert_eq!(scan.side(b"g"), Side::Left);
        let open = Request {
            key: b"c",
            end: None,
            scan: true,
        };
        assert_eq!(open.side(b"z"), Side::Contained);
        let counts = SideCounts::at(&[point, scan, open], b"d");
        assert_eq!(
            counts,
            SideCounts {
                left: 0,
                right: 1,
                contained: 2
            }
        );
        // Loads 2 and 3.
        assert!((counts.balance() - 0.2).abs() < 1e-12);
        assert!((counts.contained_share() - 2.0 / 3.0).abs() < 1e-12);
    }
}
