// The cloud configuration, client options and static credential that point the SDK at the server.

package armlocal

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Cloud is the cloud configuration that points the SDK at this server, both
// as Resource Manager and as Entra authority host.
func (s *Server) Cloud() cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: s.URL(),
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Audience: s.URL(), Endpoint: s.URL()},
		},
	}
}

// ClientOptions are ARM client options for this server: its cloud
// configuration and an HTTP client trusting its certificate.
func (s *Server) ClientOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: policy.ClientOptions{Cloud: s.Cloud(), Transport: s.HTTPClient()}}
}

// Credential returns a credential presenting Token(), for tests that do not
// exercise token acquisition.
func (s *Server) Credential() azcore.TokenCredential { return staticCredential(s.token) }

type staticCredential string

func (c staticCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(c), ExpiresOn: time.Now().Add(time.Hour)}, nil
}
