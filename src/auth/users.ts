import { eq } from 'drizzle-orm';
import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { accounts, users } from '../db/schema.ts';
import { checkPassword, hashDecoy, hashPassword, normaliseEmail } from './passwords.ts';
import type { WalletType } from './siwe.ts';

/**
 * The people who sign in to the auth API: each has its own account, made on registration
 * (e-mail) or on a wallet's first sign-in.
 */

const LOGIN_REFUSED = 'Invalid email or password';
const EMAIL_TAKEN = 'An account with this e-mail already exists';

type UserRow = typeof users.$inferSelect;

/** A new e-mail user with its own account; refused when the e-mail has one already. */
export async function registerEmailUser(
  db: Database,
  credentials: { email: string; password: string },
): Promise<{ id: string; accountId: string; email: string }> {
  const email = normaliseEmail(credentials.email);
  if (email === null)
    throw new ValidationError([{ field: 'email', message: 'must be an e-mail address' }]);
  const passwordHash = await hashPassword(credentials.password);
  const taken = () => new AppError('email_taken', EMAIL_TAKEN);
  const user = await db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (existing) throw taken();
    const [account] = await tx
      .insert(accounts)
      .values({ name: email })
      .returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned no row');
    const [row] = await tx
      .insert(users)
      .values({ accountId: account.id, email, passwordHash })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id, accountId: users.accountId });
    // A concurrent registration of the same e-mail committed first (after our select);
    // throwing rolls back the account made above.
    if (!row) throw taken();
    return row;
  });
  return { ...user, email };
}

export interface PasswordLogin {
  /** Settles once the decoy hash is made; rejects if making it failed. */
  ready(): Promise<void>;
  /** The user the e-mail and password are of; one refusal for every mismatch. */
  logIn(credentials: { email: string; password: string }): Promise<UserRow>;
}

export function createPasswordLogin(deps: { db: Database }): PasswordLogin {
  // Hashed now, while the app starts, so the first unknown e-mail costs what a wrong password does.
  const decoy = hashDecoy();
  // Marked handled now; a failure still surfaces through ready().
  decoy.catch(() => {});
  return {
    async ready() {
      await decoy;
    },
    async logIn(credentials) {
      const email = normaliseEmail(credentials.email);
      const [user] =
        email === null ? [] : await deps.db.select().from(users).where(eq(users.email, email));
      // Same work and the same answer whether the e-mail is unknown or the password wrong.
      const ok = await checkPassword(credentials.password, user?.passwordHash ?? null, await decoy);
      if (!ok || !user) throw new AppError('login_refused', LOGIN_REFUSED);
      return user;
    },
  };
}

/** The wallet's user, created with its own account on its first sign-in. */
export async function walletUser(
  db: Database,
  wallet: { address: string; walletType: WalletType },
): Promise<{ id: string; accountId: string }> {
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(users).where(eq(users.walletAddress, wallet.address));
    if (existing) return existing;
    const [account] = await tx
      .insert(accounts)
      .values({ name: wallet.address })
      .returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned no row');
    const [user] = await tx
      .insert(users)
      .values({
        accountId: account.id,
        walletAddress: wallet.address,
        walletType: wallet.walletType,
      })
      .onConflictDoNothing({ target: users.walletAddress })
      .returning();
    if (user) return user;
    // Signed in twice at once: the other sign-in created the user.
    const [raced] = await tx.select().from(users).where(eq(users.walletAddress, wallet.address));
    if (!raced) throw new Error('wallet user vanished');
    return raced;
  });
}
