/**
 * Elements are built with `textContent`, never from HTML strings: whatever a merchant or a
 * payer put in a link (its reference, a label) shows as text and cannot become markup.
 */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/** Replaces what the page shows, and moves focus to the new screen's heading. */
export function show(root: HTMLElement, screen: HTMLElement): void {
  root.replaceChildren(screen);
  screen.querySelector<HTMLElement>('h1, h2')?.focus();
}
