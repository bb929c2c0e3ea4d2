export const keyPath = "certs/server.pem";
