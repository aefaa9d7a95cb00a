import { given, UsageError, type Values } from './flags.ts';
import type { SandboxCommand } from './invocation.ts';
import { type Output, print } from './output.ts';

/**
 * The commands that work on the running server's sandbox chain, over HTTP (its API and
 * `/sandbox/rpc`): they open no database, so they run while the server holds the embedded one.
 */
export async function runSandboxCommand(
  command: SandboxCommand,
  values: Values,
  args: readonly string[],
  configBaseUrl: string,
  out: Output,
): Promise<void> {
  const baseUrl = (values.url ?? configBaseUrl).replace(/\/+$/, '');
  if (command === 'sandbox clock' || command === 'sandbox clock advance') {
    await runClock(baseUrl, command === 'sandbox clock advance' ? args[0] : undefined, values, out);
    return;
  }
  if (command === 'sandbox authorize') {
    const { sandboxAuthorize } = await import('../sandbox/authorize.ts');
    const result = await sandboxAuthorize({
      baseUrl,
      payToken: args[0] ?? '',
      wallet: Number(values.wallet),
      apiKey: values['api-key'] ?? '',
    });
    print(values, out, result, [
      `Authorized commerce payment ${result.requestId} with wallet ${result.wallet} (${result.status}):`,
      ...result.transactions.map((hash) => `  ${hash}`),
    ]);
    return;
  }
  if (command === 'sandbox create-safe') {
    const { sandboxCreateSafe } = await import('../sandbox/create-safe.ts');
    const result = await sandboxCreateSafe({
      baseUrl,
      owners: given(values.owners).split(','),
      threshold: Number(values.threshold),
      wallet: Number(values.wallet ?? '0'),
      fund: values.fund,
    });
    print(values, out, result, [
      `Safe ${result.safe}: ${result.threshold} of ${result.owners.length} owners sign`,
      ...result.owners.map((owner) => `  owner ${owner}`),
      ...(values.fund === undefined ? [] : [`  holds ${values.fund} USDC-sandbox`]),
    ]);
    return;
  }
  if (values.safe !== undefined) {
    const { sandboxPaySafe } = await import('../sandbox/pay-safe.ts');
    const result = await sandboxPaySafe({
      baseUrl,
      token: args[0] ?? '',
      safe: values.safe,
      wallets: given(values.wallet).split(',').map(Number),
      apiKey: values['api-key'] ?? '',
    });
    print(values, out, result, [
      `Paid from Safe ${result.safe}, signed by ${result.signers.join(', ')}, sent by ${result.executor}:`,
      ...result.transactions.map((hash) => `  ${hash}`),
    ]);
    return;
  }
  const { sandboxPay } = await import('../sandbox/pay.ts');
  const result = await sandboxPay({
    baseUrl,
    token: args[0] ?? '',
    wallet: Number(values.wallet),
    apiKey: values['api-key'] ?? '',
    from:
      values.chain === undefined || values.token === undefined
        ? undefined
        : { chain: values.chain, token: values.token },
  });
  print(values, out, result, [
    result.chain === undefined
      ? `Paid with wallet ${result.wallet}:`
      : `Paid with wallet ${result.wallet} from ${result.chain} (intent ${result.intentId ?? 'not recorded'}):`,
    ...result.transactions.map((hash) => `  ${hash}`),
  ]);
}

/** `sandbox clock` prints the chain's time; `sandbox clock advance <duration>` moves it on. */
async function runClock(
  baseUrl: string,
  duration: string | undefined,
  values: Values,
  out: Output,
): Promise<void> {
  const { parseDuration, sandboxClock } = await import('../sandbox/clock.ts');
  const advanceSeconds = duration === undefined ? undefined : parseDuration(duration);
  if (advanceSeconds === null) {
    throw new UsageError(
      `<duration> must be seconds or a number with s, m, h or d, such as 90m, 2h or 7d, up to ten years (got "${duration}")`,
    );
  }
  const result = await sandboxClock({ baseUrl, advanceSeconds });
  const now = `${result.now.time} (unix ${result.now.timestamp}, block ${result.now.block})`;
  print(
    values,
    out,
    result,
    result.before === undefined
      ? [`Sandbox chain time: ${now}`]
      : [
          `Moved the sandbox clock on by ${duration} (${advanceSeconds} s):`,
          `  was ${result.before.time} (unix ${result.before.timestamp}, block ${result.before.block})`,
          `  now ${now}`,
        ],
  );
}
