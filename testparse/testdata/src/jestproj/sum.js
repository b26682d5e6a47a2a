function sum(a, b) { return a + b; }
// Deliberately wrong so the tests fail.
function sub(a, b) { return a + b; }
module.exports = { sum, sub };
