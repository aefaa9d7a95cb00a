/**
 * A port for a server a bench starts, below Linux's ephemeral range (32768 and up by default):
 * one from that range may be the local end of any of the bench's own connections, and the
 * server then refuses to start (seen: "port 36456 on 127.0.0.1 is in use").
 */
export const serverPort = (): number => 20_000 + Math.floor(Math.random() * 12_000);
