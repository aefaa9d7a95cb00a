/** A payment as `GET /v2/payments` answers it, as far as the dashboard's pages show it. */
export interface Payment {
  readonly id: string;
  readonly timestamp: string;
  readonly type: string;
  readonly amount: string;
  readonly currency: string;
  readonly destinationNetwork: string;
  readonly sourceTxHash: string | null;
  readonly destinationTxHash: string | null;
  readonly payerAddress: string | null;
  readonly request: { readonly requestId: string; readonly reference: string | null };
}
