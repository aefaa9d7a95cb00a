import { Type } from 'typebox';
import { MAX_PATH_LENGTH } from './fields.ts';

/** What the branding routes share (each is the calling orchestrator's: `x-orchestrator-key`). */

export const BRANDING_URL = '/v2/orchestrators/branding';

const Color = (description: string) =>
  Type.String({ maxLength: 7, description: `${description}: #rgb or #rrggbb` });
const Path = (description: string) => Type.String({ maxLength: MAX_PATH_LENGTH, description });

const ClientId = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'A client ID linked to this orchestrator: its own branding; absent, the orchestrator’s',
});

/** The fields a create or an update sets; none may be null (a field cannot be cleared). */
const FIELDS = {
  clientId: Type.Optional(ClientId),
  logoPath: Type.Optional(Path('Under /branding/: .png, .jpg, .jpeg, .webp or .avif (no SVG)')),
  pageBackgroundColor: Type.Optional(Color('The page behind the card')),
  cardBackgroundColor: Type.Optional(Color('The card')),
  primaryActionColor: Type.Optional(Color('Buttons and links')),
  primaryTextColor: Type.Optional(Color('Text')),
  secondaryTextColor: Type.Optional(Color('Muted text')),
  termsPath: Type.Optional(Path('Under /branding/, .html')),
  privacyPath: Type.Optional(Path('Under /branding/, .html')),
  displayRequestBranding: Type.Optional(Type.Boolean()),
  // The design tokens' names (api-facts §11.4), taken as aliases of the stored names.
  pageBackground: Type.Optional(Color('Alias of pageBackgroundColor')),
  surfaceBackground: Type.Optional(Color('Alias of cardBackgroundColor')),
  primaryAction: Type.Optional(Color('Alias of primaryActionColor')),
  primaryText: Type.Optional(Color('Alias of primaryTextColor')),
  secondaryText: Type.Optional(Color('Alias of secondaryTextColor')),
};

export const BrandingBody = Type.Object(FIELDS, { additionalProperties: false });

export const ClientIdQuery = Type.Object(
  { clientId: Type.Optional(ClientId) },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const BrandingResponse = Type.Object(
  {
    id: Type.String(),
    orchestratorId: Type.String(),
    clientIdId: Nullable(Type.String({ description: 'Null on the orchestrator’s own branding' })),
    logoPath: Nullable(Type.String()),
    pageBackgroundColor: Nullable(Type.String()),
    cardBackgroundColor: Nullable(Type.String()),
    primaryActionColor: Nullable(Type.String()),
    primaryTextColor: Nullable(Type.String()),
    secondaryTextColor: Nullable(Type.String()),
    termsPath: Nullable(Type.String()),
    privacyPath: Nullable(Type.String()),
    displayRequestBranding: Type.Boolean(),
  },
  {
    additionalProperties: false,
    description: 'Null fields are unset: the page’s defaults stand in',
  },
);

/**
 * A link's resolved branding (Request API 0.13.0's `branding` of `GET /v2/secure-payments/{token}`):
 * the colors always, the paths where set; null when neither the client ID nor its orchestrator
 * has one.
 */
export const LinkBranding = Type.Union(
  [
    Type.Object(
      {
        id: Type.String(),
        clientIdId: Type.Optional(
          Type.String({ description: 'Present when the client ID’s own branding applies' }),
        ),
        orchestratorId: Type.String(),
        logoPath: Type.Optional(Type.String()),
        pageBackgroundColor: Type.String(),
        cardBackgroundColor: Type.String(),
        primaryActionColor: Type.String(),
        primaryTextColor: Type.String(),
        secondaryTextColor: Type.String(),
        termsPath: Type.Optional(Type.String()),
        privacyPath: Type.Optional(Type.String()),
        displayRequestBranding: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'The link’s branding: its client ID’s, else its orchestrator’s; null when neither has one (the page uses its defaults)',
  },
);
