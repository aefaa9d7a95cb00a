/** The text `payreq --help` prints, and usage errors after their message. */
export const USAGE = `Usage: payreq <command> [options]

Commands:
  serve                                         run the service (what npm start runs)
  migrate                                       apply database migrations
  account create --name <name>                  create an account and its first API key
  api-key create --account <id> [--label <l>]   issue another API key for an account
  api-key revoke --key <apiKey>                 revoke a key for good (e.g. after a leak)
  client-id create --account <id> [--label <l>] [--domain <origin>]...
                   [--bind <destinationId>]     create a client ID (no --domain: backend),
                                                bound to an active destination of the account
  orchestrator create --name <name>             create an orchestrator and its key
  orchestrator list                             list orchestrators and their keys' prefixes
  orchestrator rotate-key --id <orchestratorId> issue a new key (shown once); the old ones
                                                stop working at once
  fee-config list --orchestrator <id> [--client-id <clientId>]
                                                an orchestrator's fee configs (every level,
                                                or that linked client ID's)
  fee-config create --orchestrator <id> --flow incoming|outgoing --bearer payer|recipient
                    --bps <0-10000> [--usd-cap <usd>] [--evm-recipient <0x…>]
                    [--tron-recipient <T…>] [--client-id <clientId>]
                                                create a fee config, checked as the API does
  fee-config disable --id <feeConfigId>         disable a fee config
  destination create --account <id> --address <wallet>
                     (--chain-id <n> --token <tokenAddress> | --currency <id, e.g. USDC-sandbox>)
                     [--bind <clientId>]        register a payee destination (and bind it)
  payers reencrypt                              re-seal payers' personal data under the current
                                                key (DATA_KEY_ID); safe while servers run
  sandbox pay <token> --wallet <n> --api-key <key> [--url <baseUrl>]
              [--chain <SANDBOX|SANDBOX_B> --token <USDC|USDT>]
                                                pay a link on the sandbox chain with test wallet n
                                                (talks to the running server); with --chain and
                                                --token, from that chain and token through the
                                                local bridge
  sandbox pay <token> --safe <address> --wallet <n>,<m>... --api-key <key> [--url <baseUrl>]
                                                pay it from a Safe: its owners test wallets n, m…
                                                sign, the first executes
  sandbox authorize <payToken> --wallet <n> --api-key <key> [--url <baseUrl>]
                                                authorize a commerce payment (its payUrl's
                                                ?commerce= token) with test wallet n: the funds
                                                are held in the sandbox's escrow
  sandbox create-safe --owners <n|0x…>,... --threshold <n> [--fund <USDC>]
                      [--wallet <n>] [--url <baseUrl>]
                                                make a Safe 1.4.1 on the sandbox chain (sent by
                                                test wallet n, 0 by default), and fund it
  sandbox clock [--url <baseUrl>]               print the sandbox chain's time (its latest block)
  sandbox clock advance <duration> [--url <baseUrl>]
                                                move the sandbox chain's clock on by <duration>
                                                (seconds, or e.g. 90m, 2h, 7d) and mine a block,
                                                so an expiry passes without waiting for it

Options:
  --json    print one JSON object instead of text
  --help    show this help`;
