import { createTransport, type EIP1193RequestFn, type Transport } from 'viem';

/**
 * An EIP-1193 provider, and the events it may emit: `message` carries subscriptions'
 * notifications (`eth_subscription`), `disconnect` says they stopped. An in-process chain
 * (Hardhat's EDR) emits both; a provider without `on` is asked by request only.
 */
export interface NotifyingProvider {
  request: EIP1193RequestFn;
  on?(event: 'message' | 'disconnect', listener: (payload: unknown) => void): unknown;
  removeListener?(event: 'message' | 'disconnect', listener: (payload: unknown) => void): unknown;
}

/** A subscription's notification, as EIP-1193 delivers it. */
interface SubscriptionMessage {
  readonly type: 'eth_subscription';
  readonly data: { readonly subscription: string; readonly result: unknown };
}

const isSubscriptionMessage = (payload: unknown): payload is SubscriptionMessage =>
  typeof payload === 'object' &&
  payload !== null &&
  'type' in payload &&
  payload.type === 'eth_subscription' &&
  'data' in payload &&
  typeof payload.data === 'object' &&
  payload.data !== null &&
  'subscription' in payload.data;

/**
 * viem's transport for an EIP-1193 provider (as viem's `custom`) which, when the provider tells
 * of its subscriptions, also subscribes the way viem's WebSocket transport does (`subscribe`),
 * so a node in process is followed as a node over a socket is (src/detection/heads.ts).
 */
export function providerTransport(provider: NotifyingProvider): Transport {
  const { on, removeListener } = provider;
  const subscribe =
    on && removeListener
      ? async (args: {
          params: readonly unknown[];
          onData: (data: { subscription: string; result: unknown }) => void;
          onError?: (error: unknown) => void;
        }) => {
          let id: string | null = null;
          // Listening before asking: a notification that comes with the answer is not lost.
          const onMessage = (payload: unknown) => {
            if (isSubscriptionMessage(payload) && payload.data.subscription === id)
              args.onData(payload.data);
          };
          const onDisconnect = (error: unknown) => args.onError?.(error);
          on.call(provider, 'message', onMessage);
          on.call(provider, 'disconnect', onDisconnect);
          const stop = () => {
            removeListener.call(provider, 'message', onMessage);
            removeListener.call(provider, 'disconnect', onDisconnect);
          };
          try {
            id = String(await provider.request({ method: 'eth_subscribe', params: args.params }));
          } catch (error) {
            stop();
            throw error;
          }
          return {
            subscriptionId: id,
            unsubscribe: async () => {
              stop();
              return provider.request({ method: 'eth_unsubscribe', params: [id] });
            },
          };
        }
      : undefined;
  return () =>
    createTransport(
      {
        key: 'provider',
        name: 'EIP-1193 provider',
        request: provider.request.bind(provider),
        retryCount: 0,
        type: 'provider',
      },
      subscribe && { subscribe },
    );
}
