/**
 * Runs tasks of one key one after another, in order: the server's operator signs one
 * transaction at a time per network, each taking its nonce from the chain's pending count once
 * the previous one is broadcast. (One process: several processes sharing one operator key
 * should each have their own key, or send through one of them.)
 */
export interface SendQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export function createSendQueue(): SendQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.catch(() => {});
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
