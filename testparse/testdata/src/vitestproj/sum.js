export function sum(a, b) { return a + b; }
// Deliberately wrong so the tests fail.
export function sub(a, b) { return a + b; }
