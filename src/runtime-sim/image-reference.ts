/**
 * Docker-style image references (`[registry[:port]/]name[/name…][:tag][@sha256:digest]`), checked
 * piece by piece so a refusal can say which piece is wrong: staff see this message in the 422 of
 * the pull-image operation and need to know what to fix.
 */

export const MAX_IMAGE_REFERENCE_LENGTH = 500;

const NAME_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const REGISTRY_HOST =
  /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Why `reference` is not a valid image reference, or null when it is one. */
export function imageReferenceProblem(reference: string): string | null {
  if (reference.length === 0) return 'the image reference is empty';
  if (reference.length > MAX_IMAGE_REFERENCE_LENGTH)
    return `the image reference is longer than ${MAX_IMAGE_REFERENCE_LENGTH} characters`;
  if (/\s/.test(reference)) return 'the image reference contains whitespace';

  let rest = reference;
  const at = rest.indexOf('@');
  if (at !== -1) {
    const digest = rest.slice(at + 1);
    if (!DIGEST.test(digest)) return `digest "${digest}" must be "sha256:" followed by 64 lowercase hex digits`;
    rest = rest.slice(0, at);
  }

  // A tag follows the first ':' after the last '/'; a ':' before that belongs to a registry port.
  const tagColon = rest.indexOf(':', rest.lastIndexOf('/') + 1);
  if (tagColon !== -1) {
    const tag = rest.slice(tagColon + 1);
    if (!TAG.test(tag))
      return `tag "${tag}" must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"`;
    rest = rest.slice(0, tagColon);
  }

  const components = rest.split('/');
  const first = components[0] ?? '';
  // As docker reads it: a first component with a dot or a port, or `localhost`, names a registry.
  if (components.length > 1 && (/[.:]/.test(first) || first === 'localhost')) {
    components.shift();
    if (!REGISTRY_HOST.test(first)) return `registry "${first}" is not a host name with an optional port`;
  }
  for (const component of components) {
    if (component === '') return 'the repository name has an empty path component';
    if (component !== component.toLowerCase()) return `repository name "${component}" must be lowercase`;
    if (!NAME_COMPONENT.test(component)) {
      return `repository name "${component}" may hold only lowercase letters and digits, joined by ".", "_", "__" or \
"-"`;
    }
  }
  return null;
}
