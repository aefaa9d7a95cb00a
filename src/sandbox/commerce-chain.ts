import type { Address } from 'viem';
import type { SandboxAddresses } from './addresses.ts';
import type { ArtifactName } from './artifacts.ts';

/** Deploys an artifact with its constructor's arguments and checks it landed at `at`. */
export type Deployer = (name: ArtifactName, args: readonly unknown[], at: Address) => Promise<void>;

/**
 * Commerce payments (contracts.md §5, ours: contracts/commerce/), last in the deploy
 * order: the escrow, the collector that funds authorizations and the one that funds refunds
 * (both callable by the escrow only), then the wrapper, which settles through ERC20FeeProxy.
 */
export async function deployCommerce(create: Deployer, expected: SandboxAddresses): Promise<void> {
  await create('AuthCaptureEscrow', [], expected.authCaptureEscrow);
  await create(
    'PreApprovalPaymentCollector',
    [expected.authCaptureEscrow],
    expected.preApprovalPaymentCollector,
  );
  await create(
    'OperatorRefundCollector',
    [expected.authCaptureEscrow],
    expected.operatorRefundCollector,
  );
  await create(
    'ERC20CommerceEscrowWrapper',
    [expected.authCaptureEscrow, expected.erc20FeeProxy],
    expected.commerceEscrowWrapper,
  );
}
