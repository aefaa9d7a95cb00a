/** The header of the off-ramp provider's signed callbacks (base/timed-signature.ts). */
export const SIGNATURE_HEADER = 'x-offramp-signature';
