import { focusOnMount } from './focus.ts';

/**
 * A secret payreq shows once (an API key, a webhook's signing secret): in a field that takes
 * the focus and selects itself for copying, announced as it appears, kept only while on screen.
 */
export function ShownOnce(props: {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  /** The field's name, for labels and screen readers. */
  readonly label: string;
  readonly value: string;
  readonly onDone: () => void;
}) {
  return (
    <section class="secret" aria-labelledby={props.id} aria-live="polite" data-field={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <p>{props.text}</p>
      <input
        aria-label={props.label}
        ref={focusOnMount}
        readOnly
        value={props.value}
        onFocus={(event) => event.currentTarget.select()}
      />
      <button type="button" onClick={props.onDone}>
        I have stored it
      </button>
    </section>
  );
}
