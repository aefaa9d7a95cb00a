/** The longest node message we pass on: it reaches callers, so it is cut and kept to text. */
const MAX_NODE_MESSAGE = 300;

/** Control characters, DEL and the replacement character: blanked out of what we pass on. */
function unprintable(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || code === 0xfffd;
}

/** Node messages are hex-encoded text; anything else is passed on as it came. */
export function nodeText(message: string): string {
  const text = /^(?:[0-9a-fA-F]{2})+$/.test(message)
    ? Buffer.from(message, 'hex').toString('utf8')
    : message;
  const clean = Array.from(text, (char) => (unprintable(char) ? ' ' : char))
    .join('')
    .trim();
  return clean.length > MAX_NODE_MESSAGE ? `${clean.slice(0, MAX_NODE_MESSAGE)}…` : clean;
}
