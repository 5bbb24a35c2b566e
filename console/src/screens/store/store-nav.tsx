import { type AreaPart, SubNav } from '../../shell/sub-nav';
import './store.css';

const read = ['store.read'];
const PARTS: AreaPart[] = [
  { path: '/store', label: 'Games', readWith: read },
  { path: '/store/genres', label: 'Genres', readWith: read },
  { path: '/store/developers', label: 'Developers', readWith: read },
  { path: '/store/publishers', label: 'Publishers', readWith: read },
];

export const StoreNav = () => <SubNav label="Store" parts={PARTS} />;
