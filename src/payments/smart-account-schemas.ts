import { Type } from 'typebox';

/**
 * The wire schemas of what a smart-account payer's `/pay` answer adds (calldata/smart-account.ts):
 * the reference's `eoaApprovalRequired`, `eoaApproval` and `eoaApprovalTransactions`, and ours,
 * `eoaApprovalPermit`.
 */

const Address = Type.String({ description: 'Checksummed address' });

export const EOA_APPROVAL_TRANSACTIONS = Type.Optional(
  Type.Array(Type.Ref('EvmTransaction'), {
    description:
      'With eoaWallet: what the owner EOA sends before the smart account executes `transactions` (the approval of the account, for a token without EIP-2612 permits); empty when nothing is owed or the approval is a permit to sign (`metadata.eoaApprovalPermit`)',
  }),
);

export const SMART_ACCOUNT_METADATA = {
  eoaApprovalRequired: Type.Optional(
    Type.Boolean({
      description:
        'With eoaWallet: the owner EOA must let the smart account take its tokens before `transactions` can run',
    }),
  ),
  eoaApproval: Type.Optional(
    Type.Object(
      {
        owner: Address,
        spender: Address,
        tokenAddress: Address,
        currency: Type.String({ description: 'The currency id, as `USDC-base`' }),
        amount: Type.String({ description: 'What this payment takes, in the token’s units' }),
        approvalType: Type.Literal('unlimited', {
          description: 'The approval (or permit) is of 2^256 - 1 base units',
        }),
      },
      { description: 'With eoaApprovalRequired: the approval the owner EOA grants' },
    ),
  ),
  eoaApprovalPermit: Type.Optional(
    Type.Object(
      {
        domain: Type.Object({
          name: Type.Optional(Type.String()),
          version: Type.Optional(Type.String()),
          chainId: Type.Optional(Type.Integer()),
          verifyingContract: Type.Optional(Address),
          salt: Type.Optional(Type.String()),
        }),
        types: Type.Record(
          Type.String(),
          Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
        ),
        primaryType: Type.Literal('Permit'),
        message: Type.Object({
          owner: Address,
          spender: Address,
          value: Type.String({ description: 'Base units, decimal' }),
          nonce: Type.String({ description: 'The owner’s permit nonce on the token, decimal' }),
          deadline: Type.String({ description: 'Unix seconds, decimal' }),
        }),
      },
      {
        description:
          'Ours, with eoaApprovalRequired and a token that takes EIP-2612 permits (found on chain): the approval as EIP-712 typed data for the owner EOA to sign. Put `permit(owner, spender, value, deadline, v, r, s)` on `eoaApproval.tokenAddress`, with the signature’s v, r, s, first in the smart account’s execution of `transactions`; the EOA then sends nothing',
      },
    ),
  ),
};
