import { type FieldError, ValidationError } from '../base/errors.ts';

/**
 * What a branding holds and the rules each field keeps (api-facts §11.4). The reference names
 * the five colors by design tokens (`pageBackground`, …) and stores them as `…Color` fields;
 * its examples send the stored names, and the tokens are taken too, as aliases.
 */

const COLOR_FIELDS = [
  'pageBackgroundColor',
  'cardBackgroundColor',
  'primaryActionColor',
  'primaryTextColor',
  'secondaryTextColor',
] as const;
export type ColorField = (typeof COLOR_FIELDS)[number];

type ColorToken =
  | 'pageBackground'
  | 'surfaceBackground'
  | 'primaryAction'
  | 'primaryText'
  | 'secondaryText';

/** Stored field → its design token's name, taken as an alias in bodies. */
const TOKEN_OF: Readonly<Record<ColorField, ColorToken>> = {
  pageBackgroundColor: 'pageBackground',
  cardBackgroundColor: 'surfaceBackground',
  primaryActionColor: 'primaryAction',
  primaryTextColor: 'primaryText',
  secondaryTextColor: 'secondaryText',
};

/** The page's own colors, where a branding leaves one unset. */
export const DEFAULT_COLORS: Readonly<Record<ColorField, string>> = {
  pageBackgroundColor: '#f3f4f6',
  cardBackgroundColor: '#ffffff',
  primaryActionColor: '#00d395',
  primaryTextColor: '#475569',
  secondaryTextColor: '#94a3b8',
};

const PATH_FIELDS = ['logoPath', 'termsPath', 'privacyPath'] as const;
type PathField = (typeof PATH_FIELDS)[number];

/** The assets each path may name: images for the logo (no SVG: it can carry script), HTML for legal pages. */
const PATH_EXTENSIONS: Readonly<Record<PathField, readonly string[]>> = {
  logoPath: ['png', 'jpg', 'jpeg', 'webp', 'avif'],
  termsPath: ['html'],
  privacyPath: ['html'],
};

/** The longest path a branding stores. */
export const MAX_PATH_LENGTH = 200;

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/**
 * A relative path under `/branding/`: segments of letters, digits, `.`, `_` and `-`, none
 * starting with a dot; so no `?`, `#`, `..`, backslash, empty segment or hidden file.
 */
export const BRANDING_PATH =
  /^\/branding\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The extension of a path BRANDING_PATH admits, lower-cased ('' without one). */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export interface BrandingFields {
  logoPath?: string;
  pageBackgroundColor?: string;
  cardBackgroundColor?: string;
  primaryActionColor?: string;
  primaryTextColor?: string;
  secondaryTextColor?: string;
  termsPath?: string;
  privacyPath?: string;
  displayRequestBranding?: boolean;
}

/** A body as the route's schema admits it: every field optional, and the token aliases. */
export type BrandingInput = BrandingFields & { readonly [T in ColorToken]?: string };

/**
 * The fields a body sets, each checked; throws one 400 naming every field that breaks a rule,
 * before anything is written. A null is refused by the schema (a branding's field cannot be
 * cleared, only replaced).
 */
export function brandingFields(input: BrandingInput): BrandingFields {
  const errors: FieldError[] = [];
  const out: BrandingFields = {};
  for (const field of COLOR_FIELDS) {
    const token = TOKEN_OF[field];
    const stored = input[field];
    const aliased = input[token];
    const value = stored ?? aliased;
    if (value === undefined) continue;
    if (stored !== undefined && aliased !== undefined && aliased !== stored) {
      errors.push({ field, message: `and ${token} name the same color: send one of them` });
      continue;
    }
    if (!HEX_COLOR.test(value)) {
      errors.push({
        field: stored === undefined ? token : field,
        message: 'must be a hex color of 3 or 6 digits, such as #0a7 or #00aa77',
      });
      continue;
    }
    out[field] = value;
  }
  for (const field of PATH_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    const problem = pathProblem(value, PATH_EXTENSIONS[field]);
    if (problem) errors.push({ field, message: problem });
    else out[field] = value;
  }
  if (input.displayRequestBranding !== undefined) {
    out.displayRequestBranding = input.displayRequestBranding;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return out;
}

function pathProblem(path: string, extensions: readonly string[]): string | null {
  if (path.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  if (!BRANDING_PATH.test(path) || path.includes('..')) {
    return 'must be a relative path under /branding/ (letters, digits, ".", "_", "-"; no "?", "#" or "..")';
  }
  if (!extensions.includes(extensionOf(path))) {
    return `must end in ${extensions.map((e) => `.${e}`).join(', ')}`;
  }
  return null;
}
