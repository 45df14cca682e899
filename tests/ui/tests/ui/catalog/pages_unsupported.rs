// Only agents with a pagination input have pages.
use agents_runtime::Client;
use agents_runtime::catalog::RetailerAPdpParams;

fn pages(client: &Client) {
    let _ = client.pages(RetailerAPdpParams::new("B08N5WRWNW"));
}

fn main() {}
