/**
 * How a fake off-ramp transfer ends, chosen by its amount unless told otherwise: cents `.13`
 * bounce (the bank returns the fiat after it was sent), cents `.66` fail (the provider's checks
 * refuse it), cents `.42` complete after a `retry_required` (the provider retries its
 * assessment), any other amount completes.
 */
export type Outcome = 'complete' | 'failed' | 'bounced' | 'retry';

export function outcomeOfAmount(amount: string): Outcome {
  const cents = (amount.split('.')[1] ?? '').padEnd(2, '0').slice(0, 2);
  if (cents === '13') return 'bounced';
  if (cents === '66') return 'failed';
  if (cents === '42') return 'retry';
  return 'complete';
}

/** The states it reports once the deposit arrived, in order. */
export function stepsOf(outcome: Outcome): readonly string[] {
  switch (outcome) {
    case 'complete':
      return [
        'initiated',
        'pending_internal_assessment',
        'ongoing_checks',
        'sending_fiat',
        'fiat_sent',
      ];
    case 'retry':
      return [
        'initiated',
        'pending_internal_assessment',
        'retry_required',
        'pending_internal_assessment',
        'ongoing_checks',
        'sending_fiat',
        'fiat_sent',
      ];
    case 'failed':
      return ['initiated', 'pending_internal_assessment', 'failed'];
    case 'bounced':
      return [
        'initiated',
        'pending_internal_assessment',
        'ongoing_checks',
        'sending_fiat',
        'bounced',
      ];
  }
}
