import { type AreaPart, SubNav } from '../../shell/sub-nav';
import './runtime.css';

const read = ['runtime.read'];
const PARTS: AreaPart[] = [
  { path: '/runtime', label: 'Nodes', readWith: read },
  { path: '/runtime/pools', label: 'Pools', readWith: read },
  { path: '/runtime/sessions', label: 'Game sessions', readWith: read },
];

export const RuntimeNav = () => <SubNav label="Runtime" parts={PARTS} />;
