/**
 * The last few values computed per key, newest first: for work on one source that consecutive
 * calls share (the metrics of one case, the summaries of one source in a data set), without
 * holding every source of a long run in memory. Keys compare with `same` (identity or text).
 */
export function recentValues<K, V>(
  size: number,
  same: (a: K, b: K) => boolean,
): (key: K, make: () => V) => V {
  const entries: Array<{ key: K; value: V }> = [];
  return (key, make) => {
    const hit = entries.find((e) => same(e.key, key));
    if (hit) return hit.value;
    const value = make();
    entries.unshift({ key, value });
    if (entries.length > size) entries.pop();
    return value;
  };
}
