/**
 * A ref that moves the keyboard's focus to its element when the element appears (a secret just
 * shown, a confirmation just asked): one function for the app's life, so Preact calls it on
 * mount only, not on every render.
 */
export function focusOnMount(element: HTMLElement | null): void {
  element?.focus();
}
