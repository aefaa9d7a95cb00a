/**
 * What a user calls a client ID or an API key. Kept apart from the client-ID rules, which read
 * addresses (and so load viem): the CLI's `account create` checks a key's label without them.
 */
export const LABEL_MAX_LENGTH = 100;
export const LABEL_MESSAGE = `must be 1 to ${LABEL_MAX_LENGTH} characters`;

export function labelFits(label: string): boolean {
  return label.length > 0 && label.length <= LABEL_MAX_LENGTH;
}
