// The API reference at /api/docs: the vendored Swagger UI over /api/openapi.json.
// A classic script run after the bundle (both `defer`), not an inline one, so the
// page needs no relaxed Content-Security-Policy. The options are FastAPI's defaults,
// plus no validator badge (it would call validator.swagger.io).
window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
