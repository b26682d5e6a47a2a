/// Adds two numbers.
///
/// ```
/// assert_eq!(demo::add(1, 2), 3);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Deliberately wrong so the tests fail.
pub fn sub(a: i32, b: i32) -> i32 {
    a + b
}

pub mod parser {
    pub fn parse(s: &str) -> Result<i32, String> {
        s.parse::<i32>().map_err(|e| format!("cannot parse {s:?}: {e}"))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn parses_number() {
            assert_eq!(parse("42"), Ok(42));
        }

        #[test]
        fn rejects_word() {
            parse("forty-two").unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
    }

    #[test]
    fn subtracts() {
        println!("about to subtract");
        assert_eq!(sub(5, 3), 2, "sub(5, 3) should be 2");
    }

    #[test]
    #[ignore]
    fn slow_one() {}

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn panics_as_expected() {
        panic!("attempt to divide by zero");
    }
}
