/** How far an upload is: bytes sent of the whole request body. */
export interface UploadProgress {
  sent: number;
  total: number;
}

/**
 * A transport for one call of the typed client that reports upload progress: fetch cannot, so the
 * request (its headers set by the client, the bearer token included) goes out by XMLHttpRequest.
 */
export function fetchWithUploadProgress(onProgress: (progress: UploadProgress) => void) {
  return async (request: Request): Promise<Response> => {
    const body = await request.text();
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url);
      for (const [name, value] of request.headers) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress({ sent: event.loaded, total: event.total });
      };
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const colon = line.indexOf(':');
          if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        const empty = xhr.status === 204 || xhr.status === 304;
        resolve(new Response(empty ? null : xhr.responseText, { status: xhr.status, headers }));
      };
      xhr.onerror = () => reject(new TypeError('The upload could not reach the service.'));
      xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
      request.signal.addEventListener('abort', () => xhr.abort());
      xhr.send(body);
    });
  };
}
