//! `orders`: a multi-tenant order store. Tenants are Zipf-popular (`s`), each with `users`
//! users (global ids `tenant x users + i`, chosen uniformly); order ids increase by one per
//! insert and timestamps by `1e6 / rate` microseconds per operation, so both are monotonic.
//! The mix (fractions of operations, normalised to their sum):
//!
//! | share       | op     | cells given                         | the query                    |
//! |-------------|--------|-------------------------------------|------------------------------|
//! | `inserts`   | `put`  | tenant, user, order, ts             | a new order                  |
//! | `by_order`  | `get`  | tenant, order                       | one recent order by its id   |
//! | `by_user`   | `get`  | tenant, user                        | a user's orders              |
//! | `by_tenant` | `get`  | tenant                              | a tenant's dashboard         |
//! | `by_time`   | `scan` | ts, ts_end (the last `span` µs)     | recent orders of every tenant |
//! | `moves`     | `put`  | tenant, user, order, user_new       | an order handed to another user of its tenant (a shard-key update under `user`) |
//!
//! With probability `txn` an insert is a transaction (`txn` column) with a read of its user
//! (`by_user`), and with probability `transfer` that transaction also writes an order for a
//! user of another tenant (a cross-tenant transaction). Reads by order and moves pick among
//! the last 65,536 orders (recent orders are read most), so memory stays bounded.

use rand::Rng;
use rand_distr::{Distribution, Zipf};

use super::kind::{Row, TableKind, TableModel};
use crate::synthetic::kind::{Param, ParamKind, WorkloadRng};
use crate::{Spec, SpecError};

/// The registry entry.
pub static KIND: TableKind = TableKind {
    name: "orders",
    about: "multi-tenant orders: Zipf tenants, users per tenant, increasing order ids and \
            timestamps; reads by order, user, tenant and time; transactions",
    params: &[
        Param {
            name: "tenants",
            kind: ParamKind::Count,
            default: "100",
            about: "tenants",
        },
        Param {
            name: "s",
            kind: ParamKind::Number,
            default: "1.1",
            about: "Zipf exponent of tenant popularity (0 is uniform)",
        },
        Param {
            name: "users",
            kind: ParamKind::Count,
            default: "1000",
            about: "users per tenant",
        },
        Param {
            name: "inserts",
            kind: ParamKind::Fraction,
            default: "0.25",
            about: "share of new orders",
        },
        Param {
            name: "by_order",
            kind: ParamKind::Fraction,
            default: "0.25",
            about: "share of reads of one order",
        },
        Param {
            name: "by_user",
            kind: ParamKind::Fraction,
            default: "0.3",
            about: "share of reads of a user's orders",
        },
        Param {
            name: "by_tenant",
            kind: ParamKind::Fraction,
            default: "0.1",
            about: "share of reads of a tenant",
        },
        Param {
            name: "by_time",
            kind: ParamKind::Fraction,
            default: "0.05",
            about: "share of time-range scans",
        },
        Param {
            name: "moves",
            kind: ParamKind::Fraction,
            default: "0.05",
            about: "share of orders handed to another user",
        },
        Param {
            name: "txn",
            kind: ParamKind::Fraction,
            default: "0.5",
            about: "share of inserts in a transaction with a read of their user",
        },
        Param {
            name: "transfer",
            kind: ParamKind::Fraction,
            default: "0.1",
            about: "share of those transactions that also write for another tenant",
        },
        Param {
            name: "rate",
            kind: ParamKind::Count,
            default: "1000",
            about: "operations per second (timestamps in microseconds)",
        },
        Param {
            name: "span",
            kind: ParamKind::Count,
            default: "60000000",
            about: "length of a time-range scan in microseconds",
        },
    ],
    columns: &[
        "op", "txn", "tenant", "user", "order", "ts", "ts_end", "user_new",
    ],
    build,
};

/// Orders kept for reads by id and moves.
const RECENT: usize = 1 << 16;

/// The first timestamp: 2023-11-14T22:13:20Z in microseconds.
const EPOCH_US: u64 = 1_700_000_000_000_000;

struct Orders {
    rng: WorkloadRng,
    tenants: Option<Zipf<f64>>,
    tenant_count: u64,
    users: u64,
    /// Cumulative shares of inserts, by_order, by_user, by_tenant, by_time (moves last).
    mix: [f64; 5],
    txn: f64,
    transfer: f64,
    step_us: f64,
    span: u64,
    /// Operations so far (timestamps follow them).
    ops: u64,
    next_order: u64,
    next_txn: u64,
    /// The last orders: (order, tenant, user), a ring of [`RECENT`].
    recent: Vec<(u64, u64, u64)>,
}

fn build(spec: &Spec, rng: WorkloadRng) -> Result<Box<dyn TableModel>, SpecError> {
    let tenant_count = spec.u64_at_least("tenants", 100, 1)?;
    let users = spec.u64_at_least("users", 1000, 1)?;
    if tenant_count.checked_mul(users).is_none() {
        return Err(spec.error("tenants x users must fit 64 bits".into()));
    }
    let s: f64 = spec.parse_or("s", 1.1, "a number")?;
    if !(s.is_finite() && s >= 0.0) {
        return Err(spec.error(format!("s={s} must be a finite number >= 0")));
    }
    let tenants = (s > 0.0)
        .then(|| Zipf::new(tenant_count as f64, s))
        .transpose()
        .map_err(|e| spec.error(format!("s={s}: {e}")))?;
    let shares = [
        spec.fraction("inserts", 0.25)?,
        spec.fraction("by_order", 0.25)?,
        spec.fraction("by_user", 0.3)?,
        spec.fraction("by_tenant", 0.1)?,
        spec.fraction("by_time", 0.05)?,
        spec.fraction("moves", 0.05)?,
    ];
    let total: f64 = shares.iter().sum();
    if total <= 0.0 {
        return Err(spec.error("the mix (inserts, by_order, ...) sums to 0".into()));
    }
    let mut mix = [0.0; 5];
    let mut sum = 0.0;
    for (m, share) in mix.iter_mut().zip(shares) {
        sum += share / total;
        *m = sum;
    }
    let rate = spec.u64_at_least("rate", 1000, 1)?;
    Ok(Box::new(Orders {
        rng,
        tenants,
        tenant_count,
        users,
        mix,
        txn: spec.fraction("txn", 0.5)?,
        transfer: spec.fraction("transfer", 0.1)?,
        step_us: 1e6 / rate as f64,
        span: spec.u64_at_least("span", 60_000_000, 1)?,
        ops: 0,
        next_order: 1,
        next_txn: 1,
        recent: Vec::new(),
    }))
}

impl Orders {
    fn tenant(&mut self) -> u64 {
        match &self.tenants {
            // Zipf ranks are 1-based; rank 1 (tenant 0) is the most popular.
            Some(z) => (z.sample(&mut self.rng) as u64 - 1).min(self.tenant_count - 1),
            None => self.rng.random_range(0..self.tenant_count),
        }
    }

    fn user_of(&mut self, tenant: u64) -> u64 {
        tenant * self.users + self.rng.random_range(0..self.users)
    }

    /// The timestamp of the next operation.
    fn now(&mut self) -> u64 {
        let t = EPOCH_US + (self.ops as f64 * self.step_us) as u64;
        self.ops += 1;
        t
    }

    fn row(op: &'static str, cells: [Option<u64>; 7]) -> Row {
        Row {
            op,
            cells: cells.to_vec(),
        }
    }

    /// A new order of `user` of `tenant` in transaction `txn`.
    fn insert(&mut self, txn: Option<u64>, tenant: u64, user: u64) -> Row {
        let (order, ts) = (self.next_order, self.now());
        self.next_order += 1;
        let entry = (order, tenant, user);
        if self.recent.len() < RECENT {
            self.recent.push(entry);
        } else {
            self.recent[(order as usize) % RECENT] = entry;
        }
        Self::row(
            "put",
            [
                txn,
                Some(tenant),
                Some(user),
                Some(order),
                Some(ts),
                None,
                None,
            ],
        )
    }

    fn read_user(&mut self, txn: Option<u64>, tenant: u64, user: u64) -> Row {
        self.now();
        Self::row(
            "get",
            [txn, Some(tenant), Some(user), None, None, None, None],
        )
    }
}

impl TableModel for Orders {
    fn next_rows(&mut self, rows: &mut Vec<Row>) {
        let pick: f64 = self.rng.random();
        let op = self.mix.iter().position(|&m| pick < m).unwrap_or(5);
        // Reads of an order and moves need an order: until the first insert, an insert.
        let op = if matches!(op, 1 | 5) && self.recent.is_empty() {
            0
        } else {
            op
        };
        match op {
            0 => {
                let tenant = self.tenant();
                let user = self.user_of(tenant);
                if self.rng.random::<f64>() < self.txn {
                    let txn = Some(self.next_txn);
                    self.next_txn += 1;
                    rows.push(self.read_user(txn, tenant, user));
                    rows.push(self.insert(txn, tenant, user));
                    if self.rng.random::<f64>() < self.transfer && self.tenant_count > 1 {
                        let other = (tenant + self.rng.random_range(1..self.tenant_count))
                            % self.tenant_count;
                        let to = self.user_of(other);
                        rows.push(self.insert(txn, other, to));
                    }
                } else {
                    rows.push(self.insert(None, tenant, user));
                }
            }
            1 => {
                let (order, tenant, _) = self.recent[self.rng.random_range(0..self.recent.len())];
                self.now();
                rows.push(Self::row(
                    "get",
                    [None, Some(tenant), None, Some(order), None, None, None],
                ));
            }
            2 => {
                let tenant = self.tenant();
                let user = self.user_of(tenant);
                rows.push(self.read_user(None, tenant, user));
            }
            3 => {
                let tenant = self.tenant();
                self.now();
                rows.push(Self::row(
                    "get",
                    [None, Some(tenant), None, None, None, None, None],
                ));
            }
            4 => {
                let end = self.now();
                rows.push(Self::row(
                    "scan",
                    [
                        None,
                        None,
                        None,
                        None,
                        Some(end.saturating_sub(self.span)),
                        Some(end),
                        None,
                    ],
                ));
            }
            _ => {
                let at = self.rng.random_range(0..self.recent.len());
                let (order, tenant, user) = self.recent[at];
                let to = self.user_of(tenant);
                self.now();
                let moved = to != user;
                if moved {
                    self.recent[at].2 = to;
                }
                rows.push(Self::row(
                    "put",
                    [
                        None,
                        Some(tenant),
                        Some(user),
                        Some(order),
                        None,
                        None,
                        moved.then_some(to),
                    ],
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::TableSpec;

    fn rows(spec: &str, n: usize, seed: u64) -> Vec<super::Row> {
        let mut model = TableSpec::parse(spec).unwrap().open(seed).unwrap();
        let mut rows = Vec::new();
        while rows.len() < n {
            model.next_rows(&mut rows);
        }
        rows
    }

    #[test]
    fn the_same_seed_gives_the_same_rows_and_ids_and_times_increase() {
        let a = rows("orders:tenants=10,users=20", 5000, 3);
        assert_eq!(a, rows("orders:tenants=10,users=20", 5000, 3));
        assert_ne!(a, rows("orders:tenants=10,users=20", 5000, 4));
        let orders: Vec<u64> = a
            .iter()
            .filter(|r| r.op == "put" && r.cells[6].is_none() && r.cells[4].is_some())
            .map(|r| r.cells[3].unwrap())
            .collect();
        assert!(orders.windows(2).all(|w| w[0] < w[1]));
        let times: Vec<u64> = a
            .iter()
            .filter(|r| r.cells[5].is_none())
            .filter_map(|r| r.cells[4])
            .collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]));
        // Users belong to their tenant.
        for r in &a {
            if let (Some(t), Some(u)) = (r.cells[1], r.cells[2]) {
                assert_eq!(u / 20, t);
            }
        }
    }

    #[test]
    fn the_mix_and_the_tenant_skew_are_as_asked() {
        let a = rows("orders:tenants=50,s=1.5,txn=0,by_time=0,moves=0", 40_000, 1);
        let share = |f: &dyn Fn(&super::Row) -> bool| {
            a.iter().filter(|r| f(r)).count() as f64 / a.len() as f64
        };
        // inserts 0.25, by_order 0.25, by_user 0.3, by_tenant 0.1, normalised by 0.9.
        let inserts = share(&|r| r.op == "put");
        assert!((inserts - 0.25 / 0.9).abs() < 0.01, "{inserts}");
        let by_tenant = share(&|r| r.op == "get" && r.cells[2].is_none() && r.cells[3].is_none());
        assert!((by_tenant - 0.1 / 0.9).abs() < 0.01, "{by_tenant}");
        // Zipf s = 1.5 over 50 tenants: tenant 0 carries 1 / H(50, 1.5) = 0.4290 of the
        // operations that name a tenant.
        let top = share(&|r| r.cells[1] == Some(0)) / share(&|r| r.cells[1].is_some());
        assert!((top - 0.4290).abs() < 0.01, "{top}");
        assert!(TableSpec::parse(
            "orders:inserts=0,by_order=0,by_user=0,by_tenant=0,by_time=0,moves=0"
        )
        .is_err());
        assert!(TableSpec::parse("orders:nope=1").is_err());
    }
}
