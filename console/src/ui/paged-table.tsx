import { keepPreviousData, type QueryKey, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { DataTable, Pager, type Sort, type TableColumn } from './data-table';
import { ProblemNote } from './problem-note';

interface Page<Item> {
  data: Item[];
  meta: { total?: number | null };
}

/** One page of a list: the previous page stays on screen while the next loads. */
export function usePagedQuery<Item>(queryKey: QueryKey, fetchPage: () => Promise<Page<Item>>) {
  return useQuery({ queryKey, queryFn: fetchPage, placeholderData: keepPreviousData });
}

interface PagedTableProps<Item extends { id: string | number }> {
  label: string;
  list: UseQueryResult<Page<Item>>;
  columns: TableColumn<Item>[];
  page: number;
  perPage: number;
  onPage: (page: number) => void;
  /** What an empty list means here ("No ticket matches these filters."). */
  emptyText: string;
  sort?: Sort;
  onSortChange?: (sort: Sort) => void;
  onRowAction?: (id: string) => void;
  /** Each row's own address: rows become links (open in a new tab works). */
  rowHref?: (item: Item) => string;
  selectedKeys?: Set<string>;
  onSelectionChange?: (keys: Set<string>) => void;
}

/** A list page's body: its failure in words, the table, and the pager under it. */
export function PagedTable<Item extends { id: string | number }>(props: PagedTableProps<Item>) {
  const { list, page, perPage, onPage, emptyText, ...table } = props;
  return (
    <>
      {list.error === null ? null : <ProblemNote error={list.error} />}
      <DataTable {...table} items={list.data?.data ?? []} emptyText={list.isPending ? 'Loading…' : emptyText} />
      {list.data === undefined ? null : (
        <Pager page={page} perPage={perPage} total={list.data.meta.total ?? 0} onPage={onPage} />
      )}
    </>
  );
}
