#[test]
fn api_add() {
    assert_eq!(demo::add(1, 1), 2);
}

#[test]
fn api_sub() {
    assert!(demo::sub(1, 1) == 0, "expected zero");
}
