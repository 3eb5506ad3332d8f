// A kubeconfig carrying credentials next to a YAML syntax error: whatever
// reports the error must name the file and line and quote neither secret.

export const SECRET_TOKEN = 'SECRET-TOKEN-123';
export const SECRET_PASSWORD = 'SECRET-PW';
/** Matches any trace of either secret. */
export const SECRETS = /SECRET-TOKEN-123|SECRET-PW/;

/** The syntax error is on line 12 (an over-indented key after the password). */
export const KUBECONFIG_WITH_SYNTAX_ERROR = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- cluster:',
  '    server: https://10.0.0.1:6443',
  '  name: c',
  'users:',
  '- name: u',
  '  user:',
  `    token: ${SECRET_TOKEN}`,
  `    password: ${SECRET_PASSWORD}`,
  '     username: [admin',
  'contexts:',
  '- context: {cluster: c, user: u}',
  '  name: x',
  'current-context: x',
  '',
].join('\n');
