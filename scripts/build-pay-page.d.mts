/** Types of build-pay-page.mjs, for the TypeScript that imports it (tests, test setup). */

export declare const PAY_PAGE_SOURCE: string;
export declare const PAY_PAGE_DIST: string;

export interface BuiltManifest {
  readonly main: string;
  readonly styles: string;
  readonly files: readonly string[];
}

/** Builds the page into `outdir` (default PAY_PAGE_DIST), replacing what was there. */
export declare function buildPayPage(outdir?: string): Promise<BuiltManifest>;
