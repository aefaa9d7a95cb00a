import type { Branding } from './api.ts';
import { h } from './dom.ts';

/**
 * The link's branding as CSS variables. A color that would leave text unreadable on its
 * background (WCAG AA: contrast below 4.5:1) is not used for text: the defaults stand in, so
 * no brand can make the page illegible. (The defaults' own secondary gray is too light for
 * text on white, so muted text reads in the primary text color unless a brand's passes.)
 */

const DEFAULT_BRANDING = {
  pageBackgroundColor: '#f3f4f6',
  cardBackgroundColor: '#ffffff',
  primaryActionColor: '#00d395',
  primaryTextColor: '#475569',
  secondaryTextColor: '#94a3b8',
} as const;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** WCAG AA for body text. */
const MIN_CONTRAST = 4.5;

function channels(hex: string): [number, number, number] {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((d) => d + d).join('') : hex.slice(1);
  return [0, 2, 4].map((i) => Number.parseInt(digits.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  ) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two hex colors, 1 to 21. */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

type Palette = { -readonly [K in keyof typeof DEFAULT_BRANDING]: string };

function palette(branding: Branding | null): Palette {
  const pick = (key: keyof Palette): string => {
    const value = branding?.[key];
    return typeof value === 'string' && HEX.test(value) ? value : DEFAULT_BRANDING[key];
  };
  const chosen: Palette = {
    pageBackgroundColor: pick('pageBackgroundColor'),
    cardBackgroundColor: pick('cardBackgroundColor'),
    primaryActionColor: pick('primaryActionColor'),
    primaryTextColor: pick('primaryTextColor'),
    secondaryTextColor: pick('secondaryTextColor'),
  };
  const replaced: string[] = [];
  if (contrast(chosen.primaryTextColor, chosen.cardBackgroundColor) < MIN_CONTRAST) {
    if (chosen.primaryTextColor !== DEFAULT_BRANDING.primaryTextColor) {
      replaced.push('primaryTextColor');
    }
    chosen.primaryTextColor = DEFAULT_BRANDING.primaryTextColor;
    if (contrast(chosen.primaryTextColor, chosen.cardBackgroundColor) < MIN_CONTRAST) {
      replaced.push('cardBackgroundColor');
      chosen.cardBackgroundColor = DEFAULT_BRANDING.cardBackgroundColor;
    }
  }
  if (contrast(chosen.secondaryTextColor, chosen.cardBackgroundColor) < MIN_CONTRAST) {
    if (chosen.secondaryTextColor !== DEFAULT_BRANDING.secondaryTextColor) {
      replaced.push('secondaryTextColor');
    }
    chosen.secondaryTextColor = chosen.primaryTextColor;
  }
  if (replaced.length > 0) {
    // The brand's choice was unreadable: say which tokens the page replaced, for whoever set them.
    console.warn(
      `branding: ${replaced.join(', ')} replaced by the page's default (text contrast below ${MIN_CONTRAST}:1)`,
    );
  }
  return chosen;
}

/** Whichever of near-black and white reads better on a background (a button, the page). */
function readableOn(background: string): string {
  return contrast('#0f172a', background) >= contrast('#ffffff', background) ? '#0f172a' : '#ffffff';
}

export function applyBranding(root: HTMLElement, branding: Branding | null): void {
  const colors = palette(branding);
  root.style.setProperty('--page-bg', colors.pageBackgroundColor);
  root.style.setProperty('--card-bg', colors.cardBackgroundColor);
  root.style.setProperty('--action', colors.primaryActionColor);
  root.style.setProperty('--action-text', readableOn(colors.primaryActionColor));
  root.style.setProperty('--page-text', readableOn(colors.pageBackgroundColor));
  root.style.setProperty('--text', colors.primaryTextColor);
  root.style.setProperty('--muted', colors.secondaryTextColor);
}

/**
 * A branding asset's path: relative, under `/branding/`, with nothing that could leave it
 * (api-facts §11.4); served beside the page, so it resolves against the page's own path.
 */
const ASSET = /^\/branding\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

function brandingAsset(path: unknown, extensions: RegExp, base: string): string | null {
  if (typeof path !== 'string' || !ASSET.test(path) || path.includes('..')) return null;
  if (!extensions.test(path)) return null;
  return `${base}${path}`;
}

/** The brand's logo above the card and its legal links below it, where the branding has them. */
export function brandingChrome(
  branding: Branding | null,
  /** PAY_URL's path: the payment page's own folder, unless a page elsewhere under it says. */
  base = location.pathname.replace(/\/[^/]*$/, ''),
): {
  logo: HTMLElement | null;
  legal: HTMLElement | null;
} {
  const logo = brandingAsset(branding?.logoPath, /\.(png|jpe?g|webp|avif)$/i, base);
  const links = (
    [
      ['Terms', brandingAsset(branding?.termsPath, /\.html$/i, base)],
      ['Privacy', brandingAsset(branding?.privacyPath, /\.html$/i, base)],
    ] as const
  ).flatMap(([label, href]) => (href ? [h('a', { href, rel: 'noopener' }, label)] : []));
  return {
    logo: logo ? h('img', { class: 'logo', src: logo, alt: 'Merchant logo' }) : null,
    legal: links.length > 0 ? h('footer', { class: 'legal' }, ...links) : null,
  };
}
