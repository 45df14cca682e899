// Only agents with a pagination input have pages; asking for their stream says so once, not
// again about the paginator's own fields.
use agents_runtime::Client;
use agents_runtime::catalog::RetailerAPdpParams;

fn pages(client: &Client) {
    let _ = client.pages(RetailerAPdpParams::new("B08N5WRWNW")).stream();
}

fn main() {}
