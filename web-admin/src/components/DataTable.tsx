import { Fragment, useEffect, useMemo, useRef, useState, type HTMLAttributes, type ReactNode } from 'react';
import type { ApiFailure } from '../api/api-error.js';
import { ErrorNotice } from './ErrorNotice.js';
import { Loading } from './Loading.js';
import { sortRows, type TableSort } from './table-sort.js';
import './data-table.css';

export interface Column<Row> {
  id: string;
  header: ReactNode;
  cell(row: Row): ReactNode;
  /** This column's cell names the row (a `th scope="row"`), as a name or a key does. */
  rowHeader?: boolean;
  className?: string;
  /** Sortable: in the browser by this value, or on the server when the table has `onSort`. */
  sortValue?(row: Row): string | number | null;
}

/** Row selection, for the tables whose rows an action applies to. */
export interface RowSelection<Row> {
  isSelected(row: Row): boolean;
  onToggle(row: Row): void;
  /** The header checkbox: all, some or none of the shown rows are selected. */
  pageState: 'all' | 'some' | 'none';
  onTogglePage(): void;
  rowLabel(row: Row): string;
  pageLabel: string;
}

export interface DataTableProps<Row> {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey(row: Row): string;
  /** Names the table for screen readers (a visually hidden caption). */
  caption: string;
  className?: string;
  /** Extra attributes of a row (`aria-current`, `data-*` hooks). */
  rowProps?(row: Row): HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;
  /** The sort shown; with `onSort` the caller sorts (on the server), otherwise the table sorts. */
  sort?: TableSort | null;
  onSort?(column: string): void;
  selection?: RowSelection<Row>;
  /** A row's expanded part, as a full-width row under it (null while collapsed). */
  detail?(row: Row): { id: string; content: ReactNode } | null;
  /** Shown instead of the table when there is no row (and no failure, and nothing loading). */
  empty: ReactNode;
  failure?: ApiFailure | null;
  onRetry?(): void;
  loading?: boolean;
  loadingWhat?: string;
  /** Keyset paging: a "load more" button under the rows while there is a next page. */
  more?: { hasMore: boolean; loading: boolean; onLoadMore(): void; label: string };
  /** Wraps the table in a focusable scrolling region with this name (wide tables). */
  region?: string;
  wrapClassName?: string;
}

function PageCheckbox({
  state,
  label,
  onChange,
}: {
  state: RowSelection<unknown>['pageState'];
  label: string;
  onChange(): void;
}) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = state === 'some';
  }, [state]);
  return <input ref={box} type="checkbox" aria-label={label} checked={state === 'all'} onChange={onChange} />;
}

/**
 * The console's one data table: sortable headers, a checkbox per row where rows can be
 * selected, "load more" for keyset-paged lists, and its own empty, loading and error states,
 * so every listing behaves (and is tested) alike. Rendering is plain rows: the largest table
 * (the fleet's 50-row pages) draws as fast through it as by hand (docs/BENCHMARKS.md).
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { rows, columns, rowKey, selection, sort: shownSort, onSort, failure, loading, more } = props;
  const [ownSort, setOwnSort] = useState<TableSort | null>(null);
  const sort = onSort ? (shownSort ?? null) : (ownSort ?? shownSort ?? null);
  const shown = useMemo(
    () => (onSort || !sort ? rows : sortRows(rows, sort, columns.find((c) => c.id === sort.column)?.sortValue)),
    [rows, sort, onSort, columns],
  );
  const toggleSort = (column: string) => {
    if (onSort) return onSort(column);
    setOwnSort(sort?.column === column ? { column, descending: !sort.descending } : { column, descending: false });
  };

  const wrapClass = `wf-table-wrap${props.wrapClassName ? ` ${props.wrapClassName}` : ''}`;
  const table = (
    <table className={`wf-table${props.className ? ` ${props.className}` : ''}`}>
      <caption className="wf-visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {selection ? (
            <th scope="col" className="wf-table-check">
              <PageCheckbox state={selection.pageState} label={selection.pageLabel} onChange={selection.onTogglePage} />
            </th>
          ) : null}
          {columns.map((column) => {
            if (!column.sortValue) {
              return (
                <th key={column.id} scope="col" className={column.className}>
                  {column.header}
                </th>
              );
            }
            const current = sort?.column === column.id ? sort : null;
            return (
              <th
                key={column.id}
                scope="col"
                className={column.className}
                aria-sort={current ? (current.descending ? 'descending' : 'ascending') : 'none'}
              >
                <button type="button" className="wf-table-sort" onClick={() => toggleSort(column.id)}>
                  {column.header}
                  <span aria-hidden="true">{current ? (current.descending ? ' ▼' : ' ▲') : ' ↕'}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {shown.map((row) => {
          const detail = props.detail?.(row);
          return (
            <Fragment key={rowKey(row)}>
              <tr aria-selected={selection ? selection.isSelected(row) : undefined} {...props.rowProps?.(row)}>
                {selection ? (
                  <td className="wf-table-check">
                    <input
                      type="checkbox"
                      aria-label={selection.rowLabel(row)}
                      checked={selection.isSelected(row)}
                      onChange={() => selection.onToggle(row)}
                    />
                  </td>
                ) : null}
                {columns.map((column) =>
                  column.rowHeader ? (
                    <th key={column.id} scope="row" className={column.className}>
                      {column.cell(row)}
                    </th>
                  ) : (
                    <td key={column.id} className={column.className}>
                      {column.cell(row)}
                    </td>
                  ),
                )}
              </tr>
              {detail ? (
                <tr id={detail.id}>
                  <td colSpan={columns.length + (selection ? 1 : 0)}>{detail.content}</td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );

  return (
    <>
      {failure ? <ErrorNotice failure={failure} onRetry={props.onRetry} /> : null}
      {loading && rows.length === 0 ? <Loading what={props.loadingWhat} /> : null}
      {!loading && !failure && rows.length === 0 ? <div className="wf-table-empty">{props.empty}</div> : null}
      {rows.length > 0 ? (
        props.region ? (
          <div className={wrapClass} tabIndex={0} role="region" aria-label={props.region}>
            {table}
          </div>
        ) : (
          <div className={wrapClass}>{table}</div>
        )
      ) : null}
      {more?.hasMore ? (
        <button type="button" className="wf-button wf-table-more" onClick={more.onLoadMore} disabled={more.loading}>
          {more.loading ? 'Loading…' : more.label}
        </button>
      ) : null}
    </>
  );
}
