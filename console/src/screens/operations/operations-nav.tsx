import { type AreaPart, SubNav } from '../../shell/sub-nav';

const PARTS: AreaPart[] = [
  { path: '/operations', label: 'Maintenance and incidents', readWith: ['ops.read', 'ops.panic'] },
  { path: '/operations/jobs', label: 'Scheduled jobs', readWith: ['settings.read'] },
  { path: '/operations/audit', label: 'Audit log', readWith: ['audit.read'] },
];

export const OperationsNav = () => <SubNav label="Operations" parts={PARTS} />;
