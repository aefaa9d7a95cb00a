/**
 * A receiver's strict schema of the reference's payment payload, as clients generate it from
 * webhooks-0.31.md: every field of the `payment-confirmed.json` fixture required (but the
 * orchestrator's `orchestratorId`) and typed as the fixture has it, `payerAddress` and
 * `payerEoaAddress` strings, `explorer` a URI, `timestamp` a date-time, fee items closed.
 */
export const STRICT_PAYMENT_EVENT = {
  type: 'object',
  required: [
    'event',
    'requestId',
    'requestID',
    'paymentReference',
    'clientId',
    'explorer',
    'amount',
    'totalAmountPaid',
    'expectedAmount',
    'timestamp',
    'txHash',
    'payerAddress',
    'payerEoaAddress',
    'network',
    'currency',
    'paymentCurrency',
    'isCryptoToFiat',
    'subStatus',
    'paymentProcessor',
    'fees',
  ],
  properties: {
    event: { type: 'string', pattern: '^payment\\.(confirmed|partial)' },
    requestId: { type: 'string', minLength: 1 },
    requestID: { type: 'string', minLength: 1 },
    paymentReference: { type: 'string', minLength: 1 },
    clientId: { type: 'string', minLength: 1 },
    explorer: { type: 'string', format: 'uri', pattern: '^https?://' },
    amount: { type: 'string' },
    totalAmountPaid: { type: 'string' },
    expectedAmount: { type: 'string' },
    timestamp: { type: 'string', format: 'date-time' },
    txHash: { type: 'string', minLength: 1 },
    payerAddress: { type: 'string', minLength: 1 },
    payerEoaAddress: { type: 'string', minLength: 1 },
    network: { type: 'string' },
    currency: { type: 'string' },
    paymentCurrency: { type: 'string' },
    isCryptoToFiat: { type: 'boolean' },
    subStatus: { type: 'string' },
    paymentProcessor: { type: 'string' },
    fees: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'amount', 'currency'],
        properties: {
          type: { type: 'string' },
          amount: { type: 'string' },
          currency: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  // WebhookBase is open: extra fields (payee, origin, securePaymentToken…) are allowed.
  additionalProperties: true,
};
