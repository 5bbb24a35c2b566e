import { createContext, useContext } from 'react';

/**
 * The service's validation issues of a form's last submit, by field path (`ends_at`), for each
 * field to show beneath itself. Kept apart from React Aria's form validation on purpose: there a
 * server error becomes the input's native custom validity, which blocks the next submit until that
 * very field is edited (a cross-field issue locked the form).
 */
export const ServiceIssues = createContext<Record<string, string>>({});

export const useServiceIssue = (name: string | undefined): string | undefined => {
  const issues = useContext(ServiceIssues);
  return name === undefined ? undefined : issues[name];
};
