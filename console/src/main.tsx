import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { sessionStore } from './api/session';
import { App } from './app';
import './styles.css';

sessionStore.resume();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
