// The Microsoft Entra token endpoints and a minimal Azure Retail Prices API.

package armlocal

import (
	"fmt"
	"net/http"
	"strings"
)

// serveIdentity answers the Microsoft Entra endpoints a client-secret
// credential calls when its authority host is this server: instance
// discovery, the tenant's OpenID configuration and the token endpoint.
func (s *Server) serveIdentity(w http.ResponseWriter, r *http.Request, segs []string) {
	base := "https://" + r.Host
	switch {
	case len(segs) == 3 && segs[0] == "common":
		writeJSON(w, http.StatusOK, map[string]any{
			"tenant_discovery_endpoint": fmt.Sprintf("%s/%s/v2.0/.well-known/openid-configuration", base, s.opts.TenantID),
			"api-version":               "1.1",
			"metadata":                  []any{},
		})
	case r.Method == http.MethodGet:
		tenant := segs[0]
		writeJSON(w, http.StatusOK, map[string]any{
			"token_endpoint":                        fmt.Sprintf("%s/%s/oauth2/v2.0/token", base, tenant),
			"authorization_endpoint":                fmt.Sprintf("%s/%s/oauth2/v2.0/authorize", base, tenant),
			"device_authorization_endpoint":         fmt.Sprintf("%s/%s/oauth2/v2.0/devicecode", base, tenant),
			"issuer":                                fmt.Sprintf("%s/%s/v2.0", base, tenant),
			"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
			"subject_types_supported":               []string{"pairwise"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
			"tenant_region_scope":                   "EU",
			"cloud_instance_name":                   "armlocal",
		})
	default:
		if err := r.ParseForm(); err != nil {
			writeOAuthError(w, "invalid_request", err.Error())
			return
		}
		if !strings.EqualFold(segs[0], s.opts.TenantID) {
			writeOAuthError(w, "invalid_tenant", fmt.Sprintf("tenant %s not found", segs[0]))
			return
		}
		id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		if s.opts.ClientID != "" && (id != s.opts.ClientID || secret != s.opts.ClientSecret) {
			writeOAuthError(w, "invalid_client", "AADSTS7000215: Invalid client secret provided.")
			return
		}
		if id == "" || secret == "" {
			writeOAuthError(w, "invalid_client", "client_id and client_secret are required")
			return
		}
		tok := "armlocal-" + randomHex(16)
		s.mu.Lock()
		s.tokens[tok] = true
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{
			"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": tok,
		})
	}
}

func writeOAuthError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusUnauthorized, map[string]any{"error": code, "error_description": desc})
}

// serveRetailPrices answers a minimal Azure Retail Prices API query with the
// catalogue's hourly prices (no filter support: every SKU of the location).
func (s *Server) serveRetailPrices(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var items []map[string]any
	for _, k := range s.skus {
		items = append(items, map[string]any{
			"currencyCode": "USD", "retailPrice": k.HourlyPrice, "unitPrice": k.HourlyPrice,
			"armRegionName": s.opts.Location, "armSkuName": k.Name, "unitOfMeasure": "1 Hour",
			"serviceName": "Virtual Machines", "type": "Consumption",
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"BillingCurrency": "USD", "Items": items, "Count": len(items)})
}
