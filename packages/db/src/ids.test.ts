import { newId, newIds } from './ids';

describe('row ids', () => {
  it('makes prefixed URL-safe ids', () => {
    expect(newId('trk')).toMatch(/^trk_[A-Za-z0-9_-]{16}$/);
    expect(newId('post')).not.toBe(newId('post'));
  });

  it('makes a batch of distinct ids shaped as newId makes them', () => {
    const ids = newIds('post', 1000);
    expect(ids).toHaveLength(1000);
    for (const id of ids) expect(id).toMatch(/^post_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(1000);
    expect(newIds('dlv', 0)).toEqual([]);
  });
});
