import { focusOnMount } from './focus.ts';

/**
 * An action that is asked for before it is done (revoke, remove, cancel): its button, then, once
 * pressed, what it will do with the button that does it (which takes the focus) and Keep.
 */
export function Confirmable(props: {
  /** Whether the merchant pressed the action and is being asked. */
  readonly asking: boolean;
  /** The action's button: "Revoke". */
  readonly label: string;
  /** What it will do: "Apps using it stop working." */
  readonly warning: string;
  /** The button that does it: "Revoke now". */
  readonly confirm: string;
  readonly busy: boolean;
  readonly onAsk: () => void;
  readonly onConfirm: () => void;
  readonly onKeep: () => void;
}) {
  if (!props.asking) {
    return (
      <button type="button" class="quiet" onClick={props.onAsk}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm">
      {props.warning}{' '}
      <button type="button" ref={focusOnMount} disabled={props.busy} onClick={props.onConfirm}>
        {props.confirm}
      </button>{' '}
      <button type="button" class="quiet" onClick={props.onKeep}>
        Keep
      </button>
    </span>
  );
}
