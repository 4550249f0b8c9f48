/**
 * 最多 limit 个任务同时跑；结果按输入顺序交给 onResult（前面的没完成，后面的先等着），
 * 这样并行了也能按步骤顺序打印。
 */
export async function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
  onResult: (result: R, item: T) => void = () => {},
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const done: boolean[] = items.map(() => false);
  let next = 0;
  let printed = 0;

  const flush = (): void => {
    while (printed < items.length && done[printed] === true) {
      onResult(results[printed] as R, items[printed] as T);
      printed++;
    }
  };

  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
      done[i] = true;
      flush();
    }
  };

  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, () => worker());
  await Promise.all(workers);
  return results;
}
