//! Rates and counts for people: the one rule `plan`'s printed summary and its notes share.

/// A rate: a whole number with thousands separators from 100 up, or when it is whole;
/// below, with the decimals that keep it from rounding to another number (a limit of 0.8
/// requests/s is not "1", nor 0.0008 "0.0").
///
/// ```
/// use planning::figures::rate;
/// assert_eq!(rate(1234.5), "1,234");
/// assert_eq!(rate(0.0008), "0.0008");
/// ```
pub fn rate(x: f64) -> String {
    if x.abs() >= 100.0 || x.fract() == 0.0 || !x.is_finite() {
        return whole(x);
    }
    // Two significant digits below 1 (0.8, 0.004), two decimals below 10, one below 100.
    let decimals = match x.abs() {
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        a => (1 - a.log10().floor() as i32).clamp(2, 12) as usize,
    };
    let text = format!("{x:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A whole number with thousands separators.
pub fn whole(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < -0.5 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_rates_keep_the_decimals_that_tell_them_apart() {
        let shown: Vec<String> = [
            0.8, 0.04, 0.005, 0.0008, 7.25, 12.34, 99.95, 100.4, 1234.5, 60.0, 0.0,
        ]
        .map(rate)
        .to_vec();
        assert_eq!(
            shown,
            ["0.8", "0.04", "0.005", "0.0008", "7.25", "12.3", "100", "100", "1,234", "60", "0"]
        );
    }

    #[test]
    fn whole_numbers_get_thousands_separators() {
        assert_eq!(
            [whole(0.4), whole(999.0), whole(1_000.0), whole(1_234_567.8)],
            ["0", "999", "1,000", "1,234,568"]
        );
        assert_eq!(whole(f64::INFINITY), "inf");
    }
}
