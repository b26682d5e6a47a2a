const { sum, sub } = require('./sum');

describe('math', () => {
  test('adds 1 + 2', () => {
    expect(sum(1, 2)).toBe(3);
  });

  test('subtracts', () => {
    expect(sub(5, 3)).toBe(2);
  });

  describe('nested group', () => {
    it('handles negatives', () => {
      expect(sum(-1, -1)).toBe(-2);
    });
    it('throws an error', () => {
      throw new Error('boom: something broke');
    });
  });

  test.skip('skipped one', () => {});
  test.todo('write more tests');
});

test('top level test', () => {
  expect({ a: 1, b: [1, 2] }).toEqual({ a: 1, b: [1, 3] });
});
