import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';

/**
 * A list the API pages by cursor (links, payments), searched by a form's filters: the page
 * shown, and the way to the next and back. Only the latest search's answer is shown (a slow
 * earlier one that lands after it is dropped), and after paging the keyboard's focus moves to
 * the new page's first words, not back to the top of the document.
 */

export type Paged<T> =
  | { readonly kind: 'loading' }
  | { readonly kind: 'found'; readonly page: T }
  | { readonly kind: 'failed'; readonly message: string };

export function usePaged<T>(options: {
  readonly apiBase: string;
  readonly path: string;
  readonly initial: () => URLSearchParams;
  readonly pageSize: number;
  readonly nextCursorOf: (page: T) => string | null;
  readonly ended: (error: unknown) => boolean;
}) {
  const { apiBase, path, pageSize, nextCursorOf, ended } = options;
  const [filters, setFilters] = useState(options.initial);
  /** The cursors that lead to the page shown: none for the first. */
  const [trail, setTrail] = useState<readonly string[]>([]);
  const [results, setResults] = useState<Paged<T>>({ kind: 'loading' });
  /** Set by paging; the found page's first words take the focus, once. */
  const focusPending = useRef(false);
  const latest = useRef(0);

  const show = useCallback(
    (query: URLSearchParams, cursors: readonly string[]) => {
      latest.current += 1;
      const asked = latest.current;
      setResults({ kind: 'loading' });
      setTrail(cursors);
      const params = new URLSearchParams(query);
      params.set('limit', String(pageSize));
      const at = cursors.at(-1);
      if (at !== undefined) params.set('cursor', at);
      call<T>(apiBase, `${path}?${params}`).then(
        (page) => {
          if (asked === latest.current) setResults({ kind: 'found', page });
        },
        (error: unknown) => {
          if (asked !== latest.current || ended(error)) return;
          setResults({ kind: 'failed', message: messageOf(error) });
        },
      );
    },
    [apiBase, path, pageSize, ended],
  );
  useEffect(() => show(filters, []), [show, filters]);

  const next = results.kind === 'found' ? nextCursorOf(results.page) : null;
  return {
    results,
    filters,
    search: (query: URLSearchParams) => {
      focusPending.current = false;
      setFilters(query);
    },
    hasPrevious: trail.length > 0,
    hasNext: next !== null,
    previous: () => {
      focusPending.current = true;
      show(filters, trail.slice(0, -1));
    },
    next: () => {
      if (next === null) return;
      focusPending.current = true;
      show(filters, [...trail, next]);
    },
    /** A ref for the found page's first words: it takes the focus after paging. */
    focusAfterPaging: (element: HTMLElement | null) => {
      if (!focusPending.current || element === null) return;
      focusPending.current = false;
      element.focus();
    },
  };
}

/** The buttons to the previous and the next page, when there are such pages. */
export function Pager(props: {
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
  readonly previous: () => void;
  readonly next: () => void;
}) {
  return (
    <div class="actions">
      {props.hasPrevious && (
        <button type="button" class="quiet" onClick={props.previous}>
          Previous page
        </button>
      )}
      {props.hasNext && (
        <button type="button" class="quiet" onClick={props.next}>
          Next page
        </button>
      )}
    </div>
  );
}
