test('always passes', () => {
  expect(true).toBe(true);
});
