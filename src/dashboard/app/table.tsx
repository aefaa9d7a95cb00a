import type { ComponentChildren } from 'preact';

export interface Row {
  readonly key: string;
  /** Marks the row for tests and styles (`data-row`). */
  readonly id?: string;
  readonly cells: readonly ComponentChildren[];
}

/**
 * A table of the account's objects. On a narrow screen (a phone) each row stacks into a card
 * whose cells are labelled by their column (styles.css), so nothing scrolls sideways.
 */
export function Table(props: {
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}) {
  return (
    <table class="stack">
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.key} data-row={row.id}>
            {row.cells.map((cell, i) => (
              <td key={props.columns[i]} data-label={props.columns[i]}>
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
