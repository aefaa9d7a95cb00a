/** The header of the compliance provider's signed callbacks (base/timed-signature.ts). */
export const SIGNATURE_HEADER = 'x-compliance-signature';
