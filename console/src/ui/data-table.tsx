import type { ReactNode } from 'react';
import {
  Button,
  Cell,
  Checkbox,
  Column,
  Row,
  type Selection,
  Table,
  TableBody,
  TableHeader,
} from 'react-aria-components';
import { LongText } from './long-text';

export interface TableColumn<Item> {
  id: string;
  name: string;
  /** The API's sort field this column orders by, when the list sorts on it. */
  sortField?: string;
  isRowHeader?: boolean;
  /** Free text of any length (a reason, a note, a URL): shown as LongText, so it cannot squeeze the other columns. */
  long?: boolean;
  render: (item: Item) => ReactNode;
}

export interface Sort {
  field: string;
  direction: 'asc' | 'desc';
}

interface DataTableProps<Item extends { id: string | number }> {
  label: string;
  columns: TableColumn<Item>[];
  items: Item[];
  sort?: Sort;
  onSortChange?: (sort: Sort) => void;
  onRowAction?: (id: string) => void;
  /** Each row's own address: a row is then a link (Ctrl-click or the middle button opens a new tab). */
  rowHref?: (item: Item) => string;
  selectedKeys?: Set<string>;
  onSelectionChange?: (keys: Set<string>) => void;
  emptyText: string;
}

/** A table whose sorting is the server's: a column header asks for `field:asc|desc`. */
export function DataTable<Item extends { id: string | number }>(props: DataTableProps<Item>) {
  const selectable = props.onSelectionChange !== undefined;
  const selectionChanged = (keys: Selection) => {
    const ids = keys === 'all' ? props.items.map((item) => String(item.id)) : [...keys].map(String);
    props.onSelectionChange?.(new Set(ids));
  };
  return (
    <div className="table-scroll">
      <Table
        aria-label={props.label}
        className="table"
        sortDescriptor={
          props.sort === undefined
            ? undefined
            : { column: props.sort.field, direction: props.sort.direction === 'asc' ? 'ascending' : 'descending' }
        }
        onSortChange={(descriptor) =>
          props.onSortChange?.({
            field: String(descriptor.column),
            direction: descriptor.direction === 'ascending' ? 'asc' : 'desc',
          })
        }
        selectionMode={selectable ? 'multiple' : 'none'}
        selectedKeys={props.selectedKeys}
        onSelectionChange={selectionChanged}
        onRowAction={props.onRowAction === undefined ? undefined : (key) => props.onRowAction?.(String(key))}
      >
        <TableHeader>
          {selectable ? (
            <Column id="select" aria-label="Select">
              <SelectionBox label="Select every row on this page" />
            </Column>
          ) : null}
          {props.columns.map((column) => (
            <Column
              key={column.id}
              id={column.sortField ?? column.id}
              isRowHeader={column.isRowHeader}
              allowsSorting={column.sortField !== undefined}
            >
              {({ sortDirection }) => (
                <span className="column-name">
                  {column.name}
                  {sortDirection === undefined ? null : (
                    <span aria-hidden="true">{sortDirection === 'ascending' ? ' ▲' : ' ▼'}</span>
                  )}
                </span>
              )}
            </Column>
          ))}
        </TableHeader>
        <TableBody items={props.items} renderEmptyState={() => <p className="empty">{props.emptyText}</p>}>
          {(item) => (
            <Row id={item.id} className="row" href={props.rowHref?.(item)}>
              {selectable ? (
                <Cell>
                  <SelectionBox label="Select row" />
                </Cell>
              ) : null}
              {props.columns.map((column) => (
                <Cell key={column.id}>
                  {column.long ? <LongCell value={column.render(item)} /> : column.render(item)}
                </Cell>
              ))}
            </Row>
          )}
        </TableBody>
      </Table>
    </div>
  );
}

/** A long column's value: text as LongText (its whole value as the title), anything else inside the same box. */
function LongCell({ value }: { value: ReactNode }) {
  if (typeof value === 'string') return <LongText value={value} />;
  return <span className="long-text">{value}</span>;
}

function SelectionBox({ label }: { label: string }) {
  return (
    <Checkbox slot="selection" className="checkbox" aria-label={label}>
      <span className="checkbox-box" aria-hidden="true" />
    </Checkbox>
  );
}

interface PagerProps {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
}

/** Page through a list whose `meta` has page, per_page and total. */
export function Pager({ page, perPage, total, onPage }: PagerProps) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <nav className="pager" aria-label="Pages">
      <Button className="btn" isDisabled={page <= 1} onPress={() => onPage(page - 1)}>
        Previous
      </Button>
      <span>
        Page {page} of {pages} · {total} in all
      </span>
      <Button className="btn" isDisabled={page >= pages} onPress={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}
