"""Run a catalog template and print two fields of the product."""

from nimble_python import Nimble

client = Nimble()
result = client.extract.templates.run(
    template="retailer_a_pdp", params={"asin": "B08N5WRWNW"}
)
product = result.data.parsing
print(product["product_title"], product["web_price"])
